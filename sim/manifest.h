/* sim/manifest — an experiment's outputs are one generation.
 *
 * DIR/NAME.manifest, written last, lists the files of experiment NAME in DIR
 * (relative to DIR: NAME.h5, NAME.csv, plots/NAME-...) that the last command
 * wrote: `g5 run` all of them, `g5 plot` the plots, keeping the rest of the
 * list. Before its manifest, a command removes the files the previous one
 * lists that it did not write again (only its own kind: g5 plot touches no
 * results file); and before it writes anything, the temporaries a killed
 * command left (.NAME.h5.tmp.PID, .NAME.csv.tmp.PID, .NAME.manifest.tmp.PID,
 * plots/.NAME.tmp.PID/). Other experiments' files are never touched, whatever
 * their names: several experiments share results/. */
#ifndef G5_SIM_MANIFEST_H
#define G5_SIM_MANIFEST_H

#include <glib.h>
#include <stdbool.h>

/* Removes the temporaries of experiment `name` from DIR and DIR/plots. */
void manifest_remove_tmps(const char *dir, const char *name);

/* Ends the generation of experiment `name` in DIR: `written` holds the
 * paths (DIR/...) of the files just written. With plots_only (g5 plot),
 * only the old list's plots/ part is replaced, its other files (that still
 * exist) stay listed. Removes what the old list names, of that part, and
 * `written` does not, then writes the new list. False with error when the
 * manifest cannot be written. */
bool manifest_update(const char *dir, const char *name, GPtrArray *written, bool plots_only,
		     GError **error);

#endif
