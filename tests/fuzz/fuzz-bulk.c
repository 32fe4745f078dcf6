/* Fuzz target: bulk frames (protocol/bulk.c, PROTOCOL.md 13), as either
 * side reads them: the input's first line is a frame's head, the bytes
 * after its LF the records. A head that reads is written again and must
 * read back the same; each whole record is read, must hold what it was
 * read from, and written again must give its bytes back. */
#include "config.h"

#include <string.h>

#include "fuzz_common.h"
#include "protocol/bulk.h"

static char line[PROTO_LINE_MAX + 1], out[PROTO_LINE_MAX + 1];

static uint64_t u64le(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool cells_in_range(const uint8_t *c, int side)
{
	for (int i = 0; i < side * side; i++)
		if (c[i] > side)
			return false;
	return true;
}

static void check_solves(const struct bulk_head *h, const uint8_t *recs, size_t size)
{
	int n = msg_write_solves(out, sizeof out, h->n, h->side, &h->f);
	struct msg back;
	struct bulk_head again;
	char err[160];
	fuzz_check(n > 0 && out[n - 1] == '\n');
	fuzz_check(msg_parse(out, (size_t)n - 1, &back, err, sizeof err) == 0);
	fuzz_check(bulk_read_head(&back, NULL, &again, err, sizeof err) == 0);
	/* (a count below 2 is no count: it is not written) */
	fuzz_check(again.n == h->n && again.side == h->side && (again.f.count < 2) == (h->f.count < 2) &&
		   (h->f.count < 2 || again.f.count == h->f.count) &&
		   again.f.limit_ms == h->f.limit_ms && again.f.progress_ms == h->f.progress_ms &&
		   again.f.has_seed == h->f.has_seed && (!h->f.has_seed || again.f.seed == h->f.seed));
	size_t rec_size = bulk_solve_size(h->side);
	int box = grid_box_for_side(h->side);
	static uint8_t rewritten[8 + GRID_MAX_CELLS];
	for (size_t at = 0; at + rec_size <= size && at / rec_size < (size_t)h->n; at += rec_size) {
		union grid_room g_room;
		struct grid *g = &g_room.grid;
		uint64_t id;
		int rc = bulk_get_solve(recs + at, box, &id, g, err, sizeof err);
		fuzz_check(id == u64le(recs + at));
		fuzz_check((rc == 0) == cells_in_range(recs + at + 8, h->side));
		if (rc < 0) {
			fuzz_check_error(err, sizeof err);
			continue;
		}
		fuzz_check(g->box == box && memcmp(g->cell, recs + at + 8, (size_t)g->cells) == 0);
		bulk_put_solve(rewritten, id, g);
		fuzz_check(memcmp(rewritten, recs + at, rec_size) == 0);
	}
}

static void check_solutions(const struct bulk_head *h, const uint8_t *recs, size_t size)
{
	size_t rec_size = bulk_solution_size(h->side);
	int box = grid_box_for_side(h->side);
	static uint8_t rewritten[20 + GRID_MAX_CELLS];
	for (size_t at = 0; at + rec_size <= size && at / rec_size < (size_t)h->n; at += rec_size) {
		struct msg_reply r;
		bulk_get_solution(recs + at, h->side, &r);
		fuzz_check(r.type == MSG_SOLUTION && r.has_id && r.id == u64le(recs + at) && r.ms >= 0);
		fuzz_check(r.cells == recs + at + 20 && r.cells_side == h->side);
		union grid_room g_room;
		struct grid *g = &g_room.grid;
		int rc = bulk_cells_grid(&r, box, g);
		fuzz_check((rc == 0) == cells_in_range(r.cells, h->side));
		/* another size's puzzle never takes them */
		fuzz_check(bulk_cells_grid(&r, box == GRID_MAX_BOX ? GRID_MIN_BOX : box + 1, g) < 0);
		if (rc < 0)
			continue;
		bulk_cells_grid(&r, box, g);
		fuzz_check_grid(g);
		const struct msg_effort e = {r.nodes, r.ms};
		bulk_put_solution(rewritten, r.id, g, &e);
		fuzz_check(memcmp(rewritten, recs + at, rec_size) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *lf = memchr(data, '\n', size < PROTO_LINE_MAX ? size : PROTO_LINE_MAX);
	if (!lf)
		return 0;
	size_t len = (size_t)(lf - data);
	memcpy(line, data, len);
	struct msg m;
	struct bulk_head h;
	char err[160];
	if (msg_parse(line, len, &m, err, sizeof err) < 0 || (m.type != MSG_SOLVES && m.type != MSG_SOLUTIONS))
		return 0;
	if (bulk_read_head(&m, NULL, &h, err, sizeof err) < 0) {
		fuzz_check_error(err, sizeof err);
		/* a solves head with bad fields still says how long its frame is */
		if (h.n)
			fuzz_check(m.type == MSG_SOLVES && h.n <= BULK_FRAME_MAX && h.side >= 4 && h.side <= GRID_MAX_SIDE);
		return 0;
	}
	fuzz_check(h.n >= 1 && h.n <= BULK_FRAME_MAX && h.side >= 4 && h.side <= GRID_MAX_SIDE);
	const uint8_t *recs = lf + 1;
	size_t rest = size - len - 1;
	if (m.type == MSG_SOLVES)
		check_solves(&h, recs, rest);
	else
		check_solutions(&h, recs, rest);
	return 0;
}
