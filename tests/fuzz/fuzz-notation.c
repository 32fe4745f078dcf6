/* Fuzz target: the puzzle notation reader for one puzzle (grid_parse), and
 * what a puzzle it accepts becomes in its own notation and in the
 * protocol's. */
#include "config.h"

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union grid_room g_room;
	union grid_room again_room;
	struct grid *g = &g_room.grid, *again = &again_room.grid;
	static char text[PROTO_LINE_MAX * 2];
	struct notation nt, nt_again;
	char err[GRID_ERR_MAX];
	if (grid_parse((const char *)data, size, g, &nt, err, sizeof err) < 0) {
		fuzz_check_error(err, sizeof err);
		return 0;
	}
	fuzz_check_grid(g);
	/* its own notation reads back as the same grid */
	int n = grid_format(g, &nt, text, sizeof text);
	fuzz_check(n > 0);
	fuzz_check(grid_parse(text, (size_t)n, again, &nt_again, err, sizeof err) == 0);
	fuzz_check(again->box == g->box && memcmp(again->cell, g->cell, (size_t)g->cells) == 0);
	n = grid_format_pretty(g, &nt, text, sizeof text);
	fuzz_check(n > 0);
	return 0;
}
