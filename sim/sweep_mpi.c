/* An MPI sweep's transport (sweep_mpi.h): rank 0 receives every other
 * rank's packed points, in rank order, as a length and then the bytes. */
#include "sim/sweep_mpi.h"

#include <stdint.h>
#include <stdlib.h>

#ifdef G5_MPI
#include <limits.h>
#include <mpi.h>
#endif

static int launched_size(void)
{
	const char *s = g_getenv("OMPI_COMM_WORLD_SIZE");

	if (!s)
		s = g_getenv("PMI_SIZE");
	if (s)
		return MAX(1, atoi(s));
	return g_getenv("PMIX_RANK") ? 2 : 1; /* PMIx says the size only once joined */
}

#ifdef G5_MPI
static bool mpi_fail(int rc, const char *what, GError **error)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (rc == MPI_SUCCESS)
		return true;
	MPI_Error_string(rc, msg, &len);
	g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO, "MPI: %s: %.*s", what, len, msg);
	return false;
}

/* Moves `len` bytes in pieces an int can count. */
static int move_bytes(bool send, guint8 *p, uint64_t len, int peer)
{
	int rc = MPI_SUCCESS;

	for (uint64_t at = 0; at < len && rc == MPI_SUCCESS;) {
		int n = (int)MIN(len - at, (uint64_t)INT_MAX);

		rc = send ? MPI_Send(p + at, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD)
			  : MPI_Recv(p + at, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		at += (uint64_t)n;
	}
	return rc;
}

static bool gather(void *ctx, GByteArray *mine, GPtrArray *all, GError **error)
{
	const struct exp_share *share = ctx;
	uint64_t len = mine->len;

	if (share->rank != 0)
		return mpi_fail(MPI_Send(&len, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD), "send", error) &&
		       mpi_fail(move_bytes(true, mine->data, len, 0), "send", error);
	g_ptr_array_add(all, g_byte_array_ref(mine));
	for (int r = 1; r < share->size; r++) {
		GByteArray *b;

		if (!mpi_fail(MPI_Recv(&len, 1, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
			      "receive", error))
			return false;
		if (len > G_MAXUINT) {
			g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_FORMAT,
				    "process %d sends %" G_GUINT64_FORMAT " bytes of points, more than one "
				    "buffer holds", r, len);
			return false;
		}
		b = g_byte_array_sized_new((guint)len);
		g_byte_array_set_size(b, (guint)len);
		g_ptr_array_add(all, b);
		if (!mpi_fail(move_bytes(false, b->data, len, r), "receive", error))
			return false;
	}
	return true;
}

bool sweep_mpi_start(struct exp_share *share, GError **error)
{
	*share = (struct exp_share){ .rank = 0, .size = 1, .gather = gather, .ctx = share };
	if (launched_size() <= 1)
		return true;
	if (!mpi_fail(MPI_Init(NULL, NULL), "init", error))
		return false;
	MPI_Comm_rank(MPI_COMM_WORLD, &share->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &share->size);
	return true;
}

bool sweep_mpi_agree(const struct exp_share *share, bool ok)
{
	int v = ok;

	if (share->size > 1)
		MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return v != 0;
}

void sweep_mpi_end(const struct exp_share *share)
{
	int joined = 0;

	MPI_Initialized(&joined);
	if (joined)
		MPI_Finalize();
	(void)share;
}
#else
bool sweep_mpi_start(struct exp_share *share, GError **error)
{
	int n = launched_size();

	*share = (struct exp_share){ .rank = 0, .size = 1 };
	if (n > 1) {
		g_set_error(error, RESULTS_ERROR, RESULTS_ERROR_IO,
			    "started as one of %d processes of an MPI job, but this g5 was built "
			    "without MPI (install libopenmpi-dev and rebuild): every process would "
			    "write the same files", n);
		return false;
	}
	return true;
}

bool sweep_mpi_agree(const struct exp_share *share, bool ok)
{
	(void)share;
	return ok;
}

void sweep_mpi_end(const struct exp_share *share)
{
	(void)share;
}
#endif
