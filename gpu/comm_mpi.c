/* gpu/comm over MPI, for the one-process-per-GPU binary (g5x-mpi). Compiled
 * by mpicc; every failure aborts the job, since a collective that fails on
 * one process would hang the others. */
#include "gpu/comm.h"

#include <mpi.h>
#include <stdio.h>

#define MPI_CHECK(call)                                                              \
	do {                                                                         \
		int mpi_rc_ = (call);                                                \
		if (mpi_rc_ != MPI_SUCCESS) {                                        \
			fprintf(stderr, "g5x: %s failed (%d) at %s:%d\n", #call, mpi_rc_, \
				__FILE__, __LINE__);                                 \
			MPI_Abort(MPI_COMM_WORLD, 1);                                \
		}                                                                    \
	} while (0)

int gx_comm_is_mpi(void)
{
	return 1;
}

void gx_comm_init(int *argc, char ***argv, int *rank, int *size)
{
	MPI_CHECK(MPI_Init(argc, argv));
	MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, rank));
	MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, size));
}

void gx_comm_finalize(void)
{
	MPI_Finalize();
}

void gx_comm_barrier(void)
{
	MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

void gx_comm_allgather(const void *in, void *out, size_t bytes)
{
	MPI_CHECK(MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE,
				MPI_COMM_WORLD));
}

void gx_comm_bcast(void *buf, size_t bytes)
{
	MPI_CHECK(MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
}

double gx_comm_max(double v)
{
	double out;

	MPI_CHECK(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	return out;
}

uint64_t gx_comm_sum(uint64_t v)
{
	unsigned long long in = v, out;

	MPI_CHECK(MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
	return out;
}

void gx_comm_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}
