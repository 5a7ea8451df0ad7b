/* libFuzzer target for sim/config (`make fuzz`, fuzz.mk). The input is YAML
 * text: with a 'platform:' key it is loaded as an experiment file (named
 * tests/config/bad/fuzz.yaml, so the corpus's relative platform paths
 * resolve), else as a platform file. A loaded experiment is expanded (when
 * small) and its first and last points are turned into platforms and
 * weights; a loaded platform is copied and released. Also feeds the first
 * line to the size-range parser. The loader must never crash, leak, hang or
 * allocate without bound, whatever the bytes. */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <string.h>

#include "sim/config.h"

static void quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *msg, gpointer user)
{
	(void)domain, (void)level, (void)msg, (void)user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	GError *err = NULL;

	g_log_set_default_handler(quiet_log, NULL);
	if (memmem(text, size, "platform:", 9)) {
		struct experiment *e = config_experiment_parse("tests/config/bad/fuzz.yaml", text, size, &err);

		if (e) {
			if (experiment_npoints(e) <= 4096) {
				GArray *pts = experiment_expand(e);

				for (guint i = 0; i < pts->len; i += pts->len > 1 ? pts->len - 1 : 1) {
					const struct exp_point *p = &g_array_index(pts, struct exp_point, i);
					struct platform pl;

					if (experiment_point_platform(e, p, &pl, NULL))
						platform_release(&pl);
					g_free(experiment_weights(e, p->ranks));
					(void)experiment_baseline(e, p->coll);
				}
				g_array_unref(pts);
			}
			experiment_free(e);
		}
	} else {
		struct platform p, q;

		if (config_platform_parse("fuzz.yaml", text, size, &p, &err)) {
			config_platform_copy(&q, &p);
			platform_release(&q);
			platform_release(&p);
		}
	}
	g_clear_error(&err);

	/* The size-range parser on the first line. */
	const char *nl = memchr(text, '\n', size);
	char *line = g_strndup(text, nl ? (size_t)(nl - text) : MIN(size, 256));
	GArray *sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));

	if (!config_size_range("'sizes'", line, sizes, &err))
		g_clear_error(&err);
	g_array_unref(sizes);
	g_free(line);
	return 0;
}
