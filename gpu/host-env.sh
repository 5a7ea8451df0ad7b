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

# budget_run LOG SECONDS_NEEDED CMD...: runs CMD under `timeout
# ${RUN_TIMEOUT:-120}`, its output to $OUT/LOG, if the script's time budget
# (BUDGET seconds from $start) leaves SECONDS_NEEDED; a skip or a failure
# is a line in LOG, never an exit.
budget_run() {
	_log=$1 _need=$2
	shift 2
	if [ $((BUDGET - ($(date +%s) - start))) -lt "$_need" ]; then
		echo "# SKIPPED (time): $*" >>"$OUT/$_log"
		return 0
	fi
	echo "# \$ $*" >>"$OUT/$_log"
	timeout "${RUN_TIMEOUT:-120}" "$@" >>"$OUT/$_log" 2>&1
	_rc=$?
	[ $_rc -eq 0 ] || echo "# FAILED ($_rc): $*" >>"$OUT/$_log"
	return 0
}
