/* `g5 compare --platform P.yaml MEASURED...`: every measured curve against
 * its simulation on P (sim/compare.h): a table per curve with its errors,
 * or one JSON object per curve; -o DIR writes DIR/compare.csv (every point)
 * and an overlay figure per curve. */
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "sim/algos/schedule_file.h"
#include "sim/cli.h"
#include "sim/compare.h"
#include "sim/overlay.h"
#include "sim/util/files.h"

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(GString *g, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		g_string_append(g, s);
		return;
	}
	g_string_append_c(g, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			g_string_append_c(g, '"');
		g_string_append_c(g, *p);
	}
	g_string_append_c(g, '"');
}

/* A JSON string literal. */
static void json_str(GString *g, const char *s)
{
	g_string_append_c(g, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_printf(g, "\\%c", *p);
		else if (*p < 0x20)
			g_string_append_printf(g, "\\u%04x", *p);
		else
			g_string_append_c(g, (char)*p);
	}
	g_string_append_c(g, '"');
}

static void print_table(const struct curve *c)
{
	g_autofree char *label = curve_label(c);

	printf("# %s  (%s, %s)\n", label, c->file, c->format);
	printf("# %12s %12s %12s %8s %7s\n", "bytes", "measured_us", "simulated_us", "ratio", "proto");
	for (guint k = 0; k < c->n; k++)
		printf("  %12" G_GUINT64_FORMAT " %12.3f %12.3f %8.4f %7s\n", c->bytes[k],
		       c->meas_us[k], c->sim_us[k], c->sim_us[k] / c->meas_us[k],
		       paxi_proto_name((enum paxi_proto)c->sim_proto[k]));
	printf("# geomean_err %.2f %%  max_err %.2f %%  points %u\n\n", 100 * c->geomean_err,
	       100 * c->max_err, c->n);
}

/* One Markdown row per curve. */
static void print_summary_row(const struct curve *c)
{
	printf("| %s | %s | %s | %u | %s | %s | %s | %s | %u | %.1f | %.1f |\n", c->impl,
	       coll_name(c->coll), c->algo, c->nchunks, dtype_name(c->dtype), c->mode,
	       c->inplace ? "in" : "out", c->proto, c->n, 100 * c->geomean_err, 100 * c->max_err);
}

static void print_json(const struct curve *c)
{
	GString *g = g_string_new("{\"file\": ");

	json_str(g, c->file);
	g_string_append(g, ", \"format\": ");
	json_str(g, c->format);
	g_string_append(g, ", \"impl\": ");
	json_str(g, c->impl);
	g_string_append_printf(g, ", \"collective\": \"%s\", \"algo\": ", coll_name(c->coll));
	json_str(g, c->algo);
	g_string_append_printf(g, ", \"nchunks\": %u, \"schedule\": ", c->nchunks);
	json_str(g, c->schedule);
	g_string_append_printf(g, ", \"ranks\": %d, \"dtype\": \"%s\", \"inplace\": %d, \"mode\": ",
			       c->ranks, dtype_name(c->dtype), (int)c->inplace);
	json_str(g, c->mode);
	g_string_append(g, ", \"timer\": ");
	json_str(g, c->timer);
	g_string_append(g, ", \"proto\": ");
	json_str(g, c->proto);
	g_string_append(g, ", \"engine\": ");
	json_str(g, c->engine);
	g_string_append_printf(g, ", \"launches\": %u", c->launches);
	g_string_append_printf(g, ", \"points\": %u, \"geomean_err\": %.6f, \"max_err\": %.6f}", c->n,
			       c->geomean_err, c->max_err);
	printf("%s\n", g->str);
	g_string_free(g, TRUE);
}

static bool write_outputs(GPtrArray *curves, const char *dir, const char *platform, bool plots,
			  GError **error)
{
	GString *g = g_string_new("file,format,impl,collective,algo,nchunks,schedule,ranks,dtype,"
				  "inplace,mode,timer,proto,engine,bytes,measured_us,simulated_us,"
				  "ratio,sim_proto\n");
	g_autofree char *csv = g_build_filename(dir, "compare.csv", NULL);
	bool ok = true;

	if (g_mkdir_with_parents(dir, 0755)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot create '%s'", dir);
		g_string_free(g, TRUE);
		return false;
	}
	for (guint i = 0; i < curves->len; i++) {
		const struct curve *c = curves->pdata[i];

		for (guint k = 0; k < c->n; k++) {
			const char *f[] = { c->file, c->format, c->impl };

			for (guint j = 0; j < G_N_ELEMENTS(f); j++) {
				csv_field(g, f[j]);
				g_string_append_c(g, ',');
			}
			g_string_append_printf(g, "%s,", coll_name(c->coll));
			csv_field(g, c->algo);
			g_string_append_printf(g, ",%u,", c->nchunks);
			csv_field(g, c->schedule);
			g_string_append_printf(g, ",%d,%s,%d,", c->ranks, dtype_name(c->dtype),
					       (int)c->inplace);
			const char *h[] = { c->mode, c->timer, c->proto, c->engine };

			for (guint j = 0; j < G_N_ELEMENTS(h); j++) {
				csv_field(g, h[j]);
				g_string_append_c(g, ',');
			}
			g_string_append_printf(g, "%" G_GUINT64_FORMAT ",%.3f,%.3f,%.6f,%s\n",
					       c->bytes[k], c->meas_us[k], c->sim_us[k],
					       c->sim_us[k] / c->meas_us[k],
					       paxi_proto_name((enum paxi_proto)c->sim_proto[k]));
		}
	}
	ok = files_write(csv, g->str, g->len, error);
	g_string_free(g, TRUE);
	if (!ok)
		return false;
	for (guint i = 0; i < curves->len && ok && plots; i++) {
		const struct curve *c = curves->pdata[i];
		g_autofree char *stem_name = curve_stem(c, i);
		g_autofree char *stem = g_build_filename(dir, stem_name, NULL);
		g_autofree char *label = curve_label(c);
		g_autofree char *title = g_strdup_printf("%s on %s", label, platform);
		struct overlay_curve oc = {
			.title = title, .file_stem = stem, .n = c->n, .bytes = c->bytes,
			.meas_us = c->meas_us, .sim_us = c->sim_us,
			.geomean_err = 100 * c->geomean_err, .max_err = 100 * c->max_err,
			.png = true, .svg = true,
		};

		ok = overlay_plot(&oc, error);
	}
	return ok;
}

int cmd_compare(int argc, char **argv)
{
	g_autofree char *where = NULL;
	g_autofree char *platform = NULL, *algo = NULL, *schedule = NULL, *out = NULL;
	gboolean json = FALSE, summary = FALSE, no_plots = FALSE;
	gint threads = 0;
	GOptionEntry entries[] = {
		{ "platform", 0, 0, G_OPTION_ARG_FILENAME, &platform, "platform file (required)", "FILE" },
		{ "algo", 0, 0, G_OPTION_ARG_STRING, &algo, "simulate this algorithm instead of what ran", "A" },
		{ "schedule", 0, 0, G_OPTION_ARG_FILENAME, &schedule, "simulate this schedule file instead of what ran", "FILE" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json, "one JSON object per curve", NULL },
		{ "no-plots", 0, 0, G_OPTION_ARG_NONE, &no_plots, "with -o: compare.csv only, no figures", NULL },
		{ "summary", 0, 0, G_OPTION_ARG_NONE, &summary, "one Markdown table row per curve", NULL },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write DIR/compare.csv and an overlay figure per curve", "DIR" },
		{ "where", 0, 0, G_OPTION_ARG_STRING, &where, "only the points that match: impl=g5,collective=allreduce,mode=single|mpi", "TERMS" },
		{ "threads", 0, 0, G_OPTION_ARG_INT, &threads, "simulation threads (default: the processors)", "N" },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new("MEASURED... - simulated against measured curves");
	struct platform pl;
	struct sched *sched = NULL;
	GPtrArray *curves = NULL;
	GError *err = NULL;
	int rc = 2;

	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_description(ctx, "Examples:\n"
					 "  g5 compare --platform configs/platforms/h200x2-nvlink.yaml \\\n"
					 "      ../shared/data/nccl-tests/h200x2/all_reduce_float_g2.txt\n"
					 "  g5 compare --platform configs/platforms/h200x2-nvlink.yaml -o cmp \\\n"
					 "      --where impl=g5,mode=mpi docs/measurements/h200x2-validation/results.csv");
	platform_init_default(&pl);
	if (!cli_parse(ctx, argv[0], &argc, &argv))
		goto out;
	if (!platform) {
		cli_usage_error(argv[0], "--platform is required");
		goto out;
	}
	if (argc < 2) {
		cli_usage_error(argv[0], "no measured file given");
		goto out;
	}
	if (algo && schedule) {
		cli_usage_error(argv[0], "give --algo or --schedule, not both");
		goto out;
	}
	if (threads < 0 || threads > 1024) {
		cli_usage_error(argv[0], "--threads must be in 1..1024, got %d", threads);
		goto out;
	}
	platform_release(&pl);
	if (!config_platform_load(platform, &pl, &err)) {
		platform_init_default(&pl);
		goto fail;
	}
	if (schedule && !(sched = sched_file_load(schedule, NULL, &err)))
		goto fail;
	curves = compare_load(argv + 1, where, &err);
	if (!curves)
		goto fail;
	struct compare_override ov = { .algo = algo, .schedule = sched };

	rc = 1;
	if (!compare_simulate(curves, &pl, &ov, threads ? (guint)threads : g_get_num_processors(),
			      &err))
		goto fail;
	if (summary && !json)
		printf("| impl | collective | algo | nchunks | dtype | mode | place | proto | points | "
		       "geomean_err %% | max_err %% |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; i < curves->len; i++) {
		if (json)
			print_json(curves->pdata[i]);
		else if (summary)
			print_summary_row(curves->pdata[i]);
		else
			print_table(curves->pdata[i]);
	}
	if (out && !write_outputs(curves, out, pl.name, !no_plots, &err))
		goto fail;
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "%s: %s\n", argv[0], err->message);
out:
	g_clear_error(&err);
	if (curves)
		g_ptr_array_unref(curves);
	sched_free(sched);
	platform_release(&pl);
	g_option_context_free(ctx);
	return rc;
}
