/* Unit tests: the bulk frames' codec (protocol/bulk.h, PROTOCOL.md 13). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "protocol/bulk.h"
#include "tap.h"

static char line[256];
static struct msg m;

static int head(const char *text, struct bulk_head *h, char *err)
{
	strcpy(line, text);
	if (msg_parse(line, strlen(line), &m, err, 128) < 0)
		return -2;
	const struct msg_solve_fields dflt = {.count = 1, .limit_ms = 5};
	return bulk_read_head(&m, &dflt, h, err, 128);
}

static void test_heads(void)
{
	struct bulk_head h;
	char err[128];
	ok(head("solves 3 9", &h, err) == 0 && h.n == 3 && h.side == 9 && h.f.limit_ms == 5 && h.f.count == 1,
	   "solves 3 9: three 9x9 records, the fields' defaults");
	ok(head("solves 1 64 limit_ms=20 count=2", &h, err) == 0 && h.side == 64 && h.f.limit_ms == 20 &&
		   h.f.count == 2,
	   "a solves head's fields are read as a solve's");
	ok(head("solves 2 9 limit_ms=x", &h, err) == -1 && h.n == 2 && h.side == 9,
	   "a bad field: refused, but the frame's length is known");
	ok(head("solutions   7 16", &h, err) == 0 && h.n == 7 && h.side == 16, "a solutions head, padded");
	ok(head("solves 0 9", &h, err) == -1 && h.n == 0, "no records: refused");
	ok(head("solves 1025 9", &h, err) == -1 && h.n == 0, "over BULK_FRAME_MAX: refused");
	ok(head("solves 1 10", &h, err) == -1 && h.n == 0, "a side that is not a square: refused (%s)", err);
	ok(head("solves 1 1", &h, err) == -1 && h.n == 0, "side 1: refused");
	ok(head("solves 1 81", &h, err) == -1 && h.n == 0, "side 81: over the largest, refused");
	ok(head("solves 1 -9", &h, err) == -1 && h.n == 0, "a sign: refused");
	ok(head("solves 9", &h, err) == -2, "no side: a malformed line");
	char buf[BULK_SOLUTIONS_HEAD + 1];
	bulk_write_solutions_head(buf, BULK_FRAME_MAX, 64);
	buf[BULK_SOLUTIONS_HEAD] = '\0';
	ok(buf[BULK_SOLUTIONS_HEAD - 1] == '\n', "the widest solutions head fits its width");
	buf[BULK_SOLUTIONS_HEAD - 1] = '\0';
	ok(head(buf, &h, err) == 0 && h.n == BULK_FRAME_MAX && h.side == 64, "and reads back: '%s'", buf);
	char sh[128];
	int n = msg_write_solves(sh, sizeof sh, 12, 25, NULL);
	is_str(sh, "solves 12 25\n", "msg_write_solves");
	ok(n == 13, "its length");
	ok(msg_write_solves(sh, 5, 12, 25, NULL) == -1, "too small a buffer: -1");
	const struct msg_solve_fields f = {.count = 3, .limit_ms = 250, .progress_ms = 100, .has_seed = true, .seed = 9};
	msg_write_solves(sh, sizeof sh, 2, 9, &f);
	is_str(sh, "solves 2 9 count=3 limit_ms=250 progress_ms=100 seed=9\n", "a head with every field");
	sh[strlen(sh) - 1] = '\0';
	ok(head(sh, &h, err) == 0 && h.n == 2 && h.f.count == 3 && h.f.limit_ms == 250 && h.f.progress_ms == 100 &&
		   h.f.has_seed && h.f.seed == 9,
	   "and reads back");
}

static void test_records(void)
{
	char err[128];
	for (int box = 2; box <= 8; box++) {
		struct grid *g = grid_new(box), *back = grid_new(box);
		for (int i = 0; i < g->cells; i++)
			g->cell[i] = (uint8_t)((i * 7 + box) % (g->side + 1));
		uint8_t *rec = malloc(bulk_solve_size(g->side));
		uint64_t id = 0;
		bulk_put_solve(rec, 0x0102030405060708ULL + (uint64_t)box, g);
		ok(rec[0] == 8 + box && rec[7] == 1, "box %d: the id little-endian", box);
		ok(bulk_get_solve(rec, box, &id, back, err, sizeof err) == 0 && id == 0x0102030405060708ULL + (uint64_t)box &&
			   memcmp(back->cell, g->cell, (size_t)g->cells) == 0,
		   "box %d: a solve record reads back", box);
		/* every cell position, each over the side by one */
		bool all = true;
		for (int i = 0; i < g->cells; i++) {
			uint8_t keep = rec[8 + i];
			rec[8 + i] = (uint8_t)(g->side + 1);
			all &= bulk_get_solve(rec, box, &id, back, err, sizeof err) == -1;
			rec[8 + i] = 255;
			all &= bulk_get_solve(rec, box, &id, back, err, sizeof err) == -1;
			rec[8 + i] = (uint8_t)g->side;
			all &= bulk_get_solve(rec, box, &id, back, err, sizeof err) == 0;
			rec[8 + i] = keep;
		}
		ok(all, "box %d: a cell over the side is refused at every place, the side itself is not", box);
		free(rec);

		uint8_t *ans = malloc(bulk_solution_size(g->side));
		struct msg_effort e = {.nodes = 1234567890123ULL, .ms = 12.3456};
		bulk_put_solution(ans, 99, g, &e);
		struct msg_reply r;
		bulk_get_solution(ans, g->side, &r);
		ok(r.type == MSG_SOLUTION && r.has_id && r.id == 99 && r.nodes == e.nodes && r.ms == 12.346 &&
			   r.cells == ans + 20 && r.cells_side == g->side && !r.grid,
		   "box %d: a solution record reads back (ms to the microsecond)", box);
		ok(bulk_cells_grid(&r, box, back) == 0 && memcmp(back->cell, g->cell, (size_t)g->cells) == 0,
		   "box %d: its cells as a grid", box);
		ok(bulk_cells_grid(&r, box == 8 ? 7 : box + 1, back) == -1, "box %d: not for another size", box);
		ans[20 + g->cells - 1] = (uint8_t)(g->side + 1);
		ok(bulk_cells_grid(&r, box, back) == -1, "box %d: a last cell over the side is refused", box);
		free(ans);
		free(g);
		free(back);
	}
	struct grid *g = grid_new(3);
	uint8_t ans[20 + 81];
	struct msg_effort slow = {.nodes = 0, .ms = 1e10};
	struct msg_reply r;
	bulk_put_solution(ans, 1, g, &slow);
	bulk_get_solution(ans, 9, &r);
	ok(r.ms == 4294967.295, "a time past 2^32 us is kept at the most");
	free(g);
}

static void test_hello(void)
{
	char err[128];
	struct msg_hello h = {.name = "cp", .version = "1", .complete = true, .min_box = 2, .max_box = 8,
			      .device = "cpu", .batch = 1, .bulk = true};
	char buf[256];
	msg_write_hello(buf, sizeof buf, &h);
	ok(strstr(buf, " bulk=1\n") != NULL, "hello writes bulk=1");
	buf[strlen(buf) - 1] = '\0';
	struct msg_hello back;
	ok(msg_parse(buf, strlen(buf), &m, err, sizeof err) == 0 && msg_read_hello(&m, &back, err, sizeof err) == 0 &&
		   back.bulk,
	   "and reads it");
	strcpy(buf, "hello x 1 proto=1 kind=complete sizes=2-8 bulk=2");
	ok(msg_parse(buf, strlen(buf), &m, err, sizeof err) == 0 && msg_read_hello(&m, &back, err, sizeof err) == 0 &&
		   !back.bulk,
	   "bulk=2, a format it does not know: lines");
	strcpy(buf, "hello x 1 proto=1 kind=complete sizes=2-8");
	ok(msg_parse(buf, strlen(buf), &m, err, sizeof err) == 0 && msg_read_hello(&m, &back, err, sizeof err) == 0 &&
		   !back.bulk,
	   "no bulk field: lines");
}

int main(void)
{
	test_heads();
	test_records();
	test_hello();
	return tap_done();
}
