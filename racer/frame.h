/* Bulk frames on a worker's pipes (PROTOCOL.md 13), the mechanism: the
 * solves a loop turn gathers for one process, written out as one frame,
 * and the solutions frames a process sends back, checked and cut into
 * records. The records' codec is protocol/bulk.h; proc.c decides when a
 * frame goes out and what an answer does. */
#ifndef RACER_FRAME_H
#define RACER_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/bufferevent.h>

#include "lib/grid.h"
#include "protocol/message.h"

/* A solves frame being gathered: n records of side, all with fields. */
struct solves_frame {
	uint8_t *recs;
	size_t cap;
	int n, side;
	struct msg_solve_fields fields;
};

/* Adds g's record for request id, with fields f. A frame it cannot join
 * (full, or of another side or fields) is written to out first. Returns
 * true when the frame was empty: the caller sets its flush. */
bool frame_add(struct solves_frame *fr, uint64_t id, const struct grid *g, const struct msg_solve_fields *f,
	       struct bufferevent *out);
/* Writes the frame, its head and its records, to out (NULL: it is
 * dropped), and empties it. */
void frame_flush(struct solves_frame *fr, struct bufferevent *out);
void frame_free(struct solves_frame *fr);

/* A line msg_parse would read as a solutions frame's head (len bytes). */
bool frame_is_solutions(const char *line, size_t len);

enum frame_read {
	FRAME_DONE,    /* every record handed on; *used: their bytes */
	FRAME_WAIT,    /* its records are not all in; *used: their bytes */
	FRAME_STOPPED, /* each() said stop */
	FRAME_BROKEN,  /* the frame breaks the protocol: why says how */
};

/* A solutions frame: its head, line (len bytes), and the rest_len bytes
 * read after it. A frame from a process that was sent none (sent false),
 * or of more records than it has in flight, breaks the protocol; so does a
 * head that does not read. Each record goes to each(arg, answer), which
 * returns false to stop. */
enum frame_read frame_read_solutions(const char *line, size_t len, const uint8_t *rest, size_t rest_len,
				     int in_flight, bool sent, bool (*each)(void *arg, const struct msg_reply *r),
				     void *arg, size_t *used, char *why, size_t whysz);

#endif
