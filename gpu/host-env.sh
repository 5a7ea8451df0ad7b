# Sourced by the GPU host scripts (after they cd to the repository root):
# what every run there needs. NVLink multicast stays off (NVLS), NCCL warns
# only, and Open MPI may run as root without its single-copy mechanism.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
