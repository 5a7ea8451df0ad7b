/* sim/sweep_mpi — an experiment's points over the processes of an MPI job
 * (`mpirun -np K g5 run X.yaml`; docs/scale.md).
 *
 * G5 joins an MPI job only when a launcher started it (Open MPI's
 * OMPI_COMM_WORLD_SIZE, PMI's PMI_SIZE or PMIx's PMIX_RANK in the
 * environment) and it was built with MPI (the build links Open MPI where
 * pkg-config finds it; `make MPI=0` leaves it out). A build without MPI
 * that a launcher started with more than one process refuses to run: every
 * process would write the same files. */
#ifndef G5_SIM_SWEEP_MPI_H
#define G5_SIM_SWEEP_MPI_H

#include <glib.h>
#include <stdbool.h>

#include "sim/results.h"

/* Joins the job if a launcher started this process; fills *share (size 1:
 * not in a job, or a job of one). False with error when a launcher started
 * several processes of a build without MPI. */
bool sweep_mpi_start(struct exp_share *share, GError **error);
/* Rank 0's verdict on whether to go on, known to every rank (a collective
 * call; true outside a job). */
bool sweep_mpi_agree(const struct exp_share *share, bool ok);
/* Leaves the job (no-op outside one). */
void sweep_mpi_end(const struct exp_share *share);

#endif
