#include "config.h"

#include "protocol/bulk.h"

#include <stdio.h>
#include <string.h>

static void put_u64le(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64le(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int bulk_read_head(const struct msg *m, const struct msg_solve_fields *dflt, struct bulk_head *h,
		   char *err, size_t errsz)
{
	uint64_t n, side;
	h->n = h->side = 0;
	if ((m->type != MSG_SOLVES && m->type != MSG_SOLUTIONS) || m->argc < 2) {
		snprintf(err, errsz, "not a frame's head");
		return -1;
	}
	if (!msg_number(m->argv[0], BULK_FRAME_MAX, &n) || n == 0) {
		snprintf(err, errsz, "%s %.32s: not a count from 1 to %d", m->word, m->argv[0], BULK_FRAME_MAX);
		return -1;
	}
	if (!msg_number(m->argv[1], GRID_MAX_SIDE, &side) || !grid_box_for_side((int)side)) {
		snprintf(err, errsz, "%s %.32s %.32s: not a grid's side (%d to %d, a square)", m->word,
			 m->argv[0], m->argv[1], GRID_MIN_BOX * GRID_MIN_BOX, GRID_MAX_SIDE);
		return -1;
	}
	h->n = (int)n;
	h->side = (int)side;
	if (m->type == MSG_SOLVES)
		return msg_read_solve_fields(m, dflt, &h->f, err, errsz);
	h->f = dflt ? *dflt : (struct msg_solve_fields){0};
	return 0;
}

void bulk_write_solutions_head(char *buf, int n, int side)
{
	char tail[BULK_SOLUTIONS_HEAD];
	int len = snprintf(tail, sizeof tail, " %d %d\n", n, side);
	/* n and side are bounded: "solutions" and the tail always fit */
	size_t pad = BULK_SOLUTIONS_HEAD - sizeof "solutions" + 1 - (size_t)len;
	memcpy(buf, "solutions", sizeof "solutions" - 1);
	memset(buf + sizeof "solutions" - 1, ' ', pad);
	memcpy(buf + sizeof "solutions" - 1 + pad, tail, (size_t)len);
}

void bulk_put_solve(uint8_t *rec, uint64_t id, const struct grid *g)
{
	put_u64le(rec, id);
	memcpy(rec + 8, g->cell, (size_t)g->cells);
}

/* The first cell over side, or -1. Eight cells a step: a byte b is over
 * side when its top bit is set, or when its low seven bits plus 127 - side
 * carry into it (no carry crosses a byte: both are at most 127). */
static int over_side(const uint8_t *cells, int n, int side)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, top = 0x8080808080808080ULL;
	const uint64_t lift = (uint64_t)(127 - side) * 0x0101010101010101ULL;
	int i = 0;
	uint64_t over = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, cells + i, 8);
		over |= (w | ((w & low7) + lift)) & top;
	}
	for (int k = i; k < n; k++)
		over |= cells[k] > side;
	if (!over)
		return -1;
	for (i = 0;; i++)
		if (cells[i] > side)
			return i;
}

int bulk_get_solve(const uint8_t *rec, int box, uint64_t *id, struct grid *g, char *err, size_t errsz)
{
	*id = get_u64le(rec);
	grid_from_cells(g, box, rec + 8);
	int bad = over_side(rec + 8, g->cells, g->side);
	if (bad >= 0) {
		grid_init(g, box);
		snprintf(err, errsz, "cell %d (row %d, column %d) is %d, over %d", bad + 1, bad / g->side + 1,
			 bad % g->side + 1, rec[8 + bad], g->side);
		return -1;
	}
	return 0;
}

void bulk_put_solution(uint8_t *rec, uint64_t id, const struct grid *solution, const struct msg_effort *e)
{
	put_u64le(rec, id);
	put_u64le(rec + 8, e ? e->nodes : 0);
	double us = e && e->ms > 0 ? e->ms * 1000 + 0.5 : 0;
	uint32_t t = us >= 4294967295.0 ? UINT32_MAX : (uint32_t)us;
	for (int i = 0; i < 4; i++)
		rec[16 + i] = (uint8_t)(t >> (8 * i));
	memcpy(rec + 20, solution->cell, (size_t)solution->cells);
}

void bulk_get_solution(const uint8_t *rec, int side, struct msg_reply *r)
{
	*r = (struct msg_reply){
		.type = MSG_SOLUTION,
		.has_id = true,
		.id = get_u64le(rec),
		.cells = rec + 20,
		.cells_side = side,
		.has_nodes = true,
		.nodes = get_u64le(rec + 8),
		.has_ms = true,
		.ms = (double)((uint32_t)rec[16] | (uint32_t)rec[17] << 8 | (uint32_t)rec[18] << 16 |
			       (uint32_t)rec[19] << 24) / 1000.0,
	};
}

int bulk_cells_grid(const struct msg_reply *r, int box, struct grid *g)
{
	int side = box * box;
	if (!r->cells || r->cells_side != side || over_side(r->cells, side * side, side) >= 0)
		return -1;
	grid_from_cells(g, box, r->cells);
	return 0;
}
