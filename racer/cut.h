/* A worker's output cut into its messages as it comes (proc.c's read
 * event): whole lines, each at most PROTO_LINE_MAX bytes, handed on in
 * place, a run of them drained at once; and bulk frames (PROTOCOL.md 13),
 * a head line and its records, handed on once all of them are in. A line
 * or frame across the buffer's chunks is pulled up into the first one. The
 * mechanism alone: what a message means is the caller's. */
#ifndef RACER_CUT_H
#define RACER_CUT_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/buffer.h>

struct cut_events {
	/* false: whatever is left is drained (a process given up on) */
	bool (*wanted)(void *arg);
	/* a line, len bytes without its LF (changeable in place) */
	void (*line)(void *arg, char *line, size_t len);
	/* a frame's head line: NULL, or the frames this caller takes (as
	 * frame_is_solutions) */
	bool (*is_frame)(void *arg, const char *line, size_t len);
	/* a frame's head and the rest_len bytes after its LF: the bytes its
	 * records took, or 0 with *wait set to them when they are not all in */
	size_t (*frame)(void *arg, const char *line, size_t len, size_t rest_len, size_t *wait);
	/* a line over PROTO_LINE_MAX: the caller gives the writer up (wanted
	 * turns false) */
	void (*overlong)(void *arg);
};

/* Hands on every whole message in, and drains it. */
void cut_messages(struct evbuffer *in, const struct cut_events *ev, void *arg);

#endif
