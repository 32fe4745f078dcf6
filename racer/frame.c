#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/bulk.h"
#include "racer/frame.h"
#include "lib/common.h"

static bool same_fields(const struct msg_solve_fields *a, const struct msg_solve_fields *b)
{
	return a->count == b->count && a->limit_ms == b->limit_ms && a->progress_ms == b->progress_ms &&
	       a->has_seed == b->has_seed && (!a->has_seed || a->seed == b->seed);
}

void frame_flush(struct solves_frame *fr, struct bufferevent *out)
{
	if (!fr->n)
		return;
	char head[BULK_HEAD_MAX];
	int n = msg_write_solves(head, sizeof head, fr->n, fr->side, &fr->fields);
	if (out && n > 0) {
		bufferevent_write(out, head, (size_t)n);
		bufferevent_write(out, fr->recs, (size_t)fr->n * bulk_solve_size(fr->side));
	}
	fr->n = 0;
}

bool frame_add(struct solves_frame *fr, uint64_t id, const struct grid *g, const struct msg_solve_fields *f,
	       struct bufferevent *out)
{
	size_t size = bulk_solve_size(g->side);
	if (fr->n && (fr->side != g->side || fr->n == BULK_FRAME_MAX || !same_fields(&fr->fields, f)))
		frame_flush(fr, out);
	bool first = !fr->n;
	if (first) {
		fr->side = g->side;
		fr->fields = *f;
	}
	if ((size_t)(fr->n + 1) * size > fr->cap) {
		fr->cap = fr->cap ? 2 * fr->cap : 64 * size;
		fr->recs = xrealloc(fr->recs, fr->cap);
	}
	bulk_put_solve(fr->recs + (size_t)fr->n++ * size, id, g);
	return first;
}

void frame_free(struct solves_frame *fr)
{
	free(fr->recs);
	*fr = (struct solves_frame){0};
}

bool frame_is_solutions(const char *line, size_t len)
{
	size_t lead = 0;
	for (; lead < len; lead++)
		if (line[lead] != ' ')
			break;
	return len >= lead + 10 && memcmp(line + lead, "solutions ", 10) == 0;
}

enum frame_read frame_read_solutions(const char *line, size_t len, const uint8_t *rest, size_t rest_len,
				     int in_flight, bool sent, bool (*each)(void *arg, const struct msg_reply *r),
				     void *arg, size_t *used, char *why, size_t whysz)
{
	struct msg m;
	struct bulk_head h;
	char err[128], head[BULK_HEAD_MAX];
	/* parsed in a copy: a frame not all in yet is read again */
	if (len >= sizeof head) {
		snprintf(why, whysz, "a frame's head of %zu bytes, over %d", len + 1, BULK_HEAD_MAX);
		return FRAME_BROKEN;
	}
	memcpy(head, line, len);
	if (msg_parse(head, len, &m, err, sizeof err) < 0 || bulk_read_head(&m, NULL, &h, err, sizeof err) < 0) {
		snprintf(why, whysz, "a malformed frame: %s", err);
		return FRAME_BROKEN;
	}
	if (!sent || h.n > in_flight) {
		/* (bounds what is waited for: the racer sent no more) */
		snprintf(why, whysz, "a frame of %d solutions, with %d in flight%s", h.n, in_flight,
			 sent ? "" : " and no bulk frames sent");
		return FRAME_BROKEN;
	}
	size_t size = bulk_solution_size(h.side);
	*used = (size_t)h.n * size;
	if (rest_len < *used)
		return FRAME_WAIT;
	for (int k = 0; k < h.n; k++) {
		struct msg_reply r;
		bulk_get_solution(rest + (size_t)k * size, h.side, &r);
		if (!each(arg, &r))
			return FRAME_STOPPED;
	}
	return FRAME_DONE;
}
