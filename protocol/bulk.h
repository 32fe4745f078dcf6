/* Bulk frames (PROTOCOL.md 13): many solves, or many solutions, in one
 * message, for a worker whose hello says bulk=1. A frame is a head line
 * ("solves N SIDE [fields]" or "solutions N SIDE"), which msg_parse reads
 * like any line, then N records of fixed size in binary:
 *
 *   solve record:    id (8 bytes) | cells (SIDE * SIDE bytes)
 *   solution record: id (8) | nodes (8) | us (4) | cells (SIDE * SIDE)
 *
 * numbers little-endian; a cell is its value, 0 for a blank. The request
 * id of a record is its number in decimal (never 0), so that a cancel, or
 * any line about it, names it as usual. This is the one codec of both
 * frames, as message.h is of the lines. */
#ifndef SUDOKU_BULK_H
#define SUDOKU_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/grid.h"
#include "protocol/message.h"

/* Most records in one frame. */
#define BULK_FRAME_MAX 1024
/* The longest head line, LF included. */
#define BULK_HEAD_MAX 256
/* A solutions head is written at this width, padded with spaces after its
 * type, so that its count can be set once the frame's records are in. */
#define BULK_SOLUTIONS_HEAD 24

static inline size_t bulk_solve_size(int side)
{
	return 8 + (size_t)side * (size_t)side;
}

static inline size_t bulk_solution_size(int side)
{
	return 20 + (size_t)side * (size_t)side;
}

/* A frame's head, read: N records of a grid of side SIDE; the fields of a
 * solves head apply to each of its puzzles. */
struct bulk_head {
	int n;
	int side;
	struct msg_solve_fields f;
};

/* Reads a head msg_parse has split (MSG_SOLVES or MSG_SOLUTIONS): n from 1
 * to BULK_FRAME_MAX, side a grid's (4, 9, ... 64); a solves head's fields
 * as msg_read_solve_fields reads them, from dflt. Returns 0, or -1 with err
 * saying what is wrong. */
int bulk_read_head(const struct msg *m, const struct msg_solve_fields *dflt, struct bulk_head *h,
		   char *err, size_t errsz);

/* (A solves head is a line: message.h's msg_write_solves writes it.) */
/* "solutions N SIDE\n" at exactly BULK_SOLUTIONS_HEAD bytes (no NUL). */
void bulk_write_solutions_head(char *buf, int n, int side);

/* A solve record of g for id (>= 1), at rec (bulk_solve_size bytes). */
void bulk_put_solve(uint8_t *rec, uint64_t id, const struct grid *g);
/* Reads a solve record of a grid of box size box: its id into *id (0 is
 * no request's: the caller refuses it), its cells into g. Returns 0, or -1
 * with err saying why when a cell is over the side (g is then blank). */
int bulk_get_solve(const uint8_t *rec, int box, uint64_t *id, struct grid *g, char *err, size_t errsz);

/* A solution record at rec (bulk_solution_size bytes): its time, e->ms,
 * in whole microseconds, at most 2^32 - 1 (71 minutes). */
void bulk_put_solution(uint8_t *rec, uint64_t id, const struct grid *solution, const struct msg_effort *e);
/* Reads a solution record of a frame of side side into r, as
 * msg_read_reply reads a solution line: r->cells points into rec. */
void bulk_get_solution(const uint8_t *rec, int side, struct msg_reply *r);

/* A solution record's cells (r->cells, r->cells_side) as a grid of box
 * size box, into g. Returns 0, or -1 when they are not such a grid's: of
 * another side, or a value over it. */
int bulk_cells_grid(const struct msg_reply *r, int box, struct grid *g);

#endif
