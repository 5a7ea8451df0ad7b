/* gpu/comm — the little the executor needs from MPI, behind a plain-C
 * interface so that only comm_mpi.c is compiled by mpicc and the
 * single-process binary (comm_single.c) needs no MPI at all. In the
 * single-process build every call acts on one process. */
#ifndef G5_GPU_COMM_H
#define G5_GPU_COMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether this binary runs one process per GPU. */
int gx_comm_is_mpi(void);
void gx_comm_init(int *argc, char ***argv, int *rank, int *size);
void gx_comm_finalize(void);
void gx_comm_barrier(void);
/* Every process contributes `bytes` at in; out receives size x bytes, by rank. */
void gx_comm_allgather(const void *in, void *out, size_t bytes);
/* Root 0's `bytes` at buf reach every process. */
void gx_comm_bcast(void *buf, size_t bytes);
double gx_comm_max(double v);
uint64_t gx_comm_sum(uint64_t v);
/* Exits every process with status `code`. */
void gx_comm_abort(int code);

#ifdef __cplusplus
}
#endif

#endif
