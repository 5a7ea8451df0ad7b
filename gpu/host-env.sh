# Sourced by the GPU host scripts (after they cd to the repository root):
# what every run there needs. NVLink multicast stays off (NVLS), NCCL warns
# only, and Open MPI may run as root without its single-copy mechanism.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# g5x_run LOG CSV MODE ARGS...: one g5x run, MODE single (gpu/build/g5x) or
# mpi (gpu/build/g5x-mpi under mpirun, one process per GPU), under a
# timeout; its table goes to LOG, its rows to CSV, a failure to LOG.
g5x_run() {
	_log=$1 _csv=$2 _mode=$3
	shift 3
	echo "# \$ [$_mode] $*" >>"$_log"
	if [ "$_mode" = single ]; then
		timeout 120 gpu/build/g5x --csv "$_csv" "$@" >>"$_log" 2>&1
	else
		timeout 120 mpirun -np 2 -x NCCL_NVLS_ENABLE -x NCCL_DEBUG gpu/build/g5x-mpi \
			--csv "$_csv" "$@" >>"$_log" 2>&1
	fi
	_rc=$?
	[ $_rc -eq 0 ] || echo "# FAILED ($_rc): $_mode $*" >>"$_log"
	return 0
}
