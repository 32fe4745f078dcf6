#include "config.h"

#include <string.h>

#include "lib/common.h"
#include "protocol/message.h"
#include "racer/cut.h"

void cut_messages(struct evbuffer *in, const struct cut_events *ev, void *arg)
{
	for (;;) {
		size_t avail = evbuffer_get_length(in);
		if (!ev->wanted(arg)) {
			/* the last words of a process given up on */
			evbuffer_drain(in, avail);
			return;
		}
		if (!avail)
			return;
		/* the whole messages of the first chunk in place, drained at
		 * once */
		struct evbuffer_iovec chunk;
		if (evbuffer_peek(in, -1, NULL, &chunk, 1) < 1)
			return;
		char *start = chunk.iov_base, *nl;
		size_t used = 0, frame_need = 0;
		while ((nl = memchr(start + used, '\n', chunk.iov_len - used)) != NULL &&
		       (size_t)(nl - start) - used + 1 <= PROTO_LINE_MAX) {
			size_t len = (size_t)(nl - start) - used;
			size_t rest = chunk.iov_len - used - len - 1, wait = 0, took = 0;
			if (ev->is_frame(arg, start + used, len))
				took = ev->frame(arg, start + used, len, rest, &wait);
			else
				ev->line(arg, start + used, len);
			if (wait) {
				frame_need = len + 1 + wait; /* the head and its records */
				break;
			}
			used += len + 1 + took;
			if (!ev->wanted(arg))
				break;
		}
		if (used) {
			evbuffer_drain(in, used);
			continue;
		}
		if (frame_need) {
			/* a frame at the front, not all of it in the first chunk */
			if (avail < frame_need)
				return;
			if (!evbuffer_pullup(in, (ev_ssize_t)frame_need))
				die("out of memory");
			continue;
		}
		struct evbuffer_ptr eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
		if (eol.pos < 0 && avail < PROTO_LINE_MAX)
			return; /* the rest of the line is still to come */
		if (eol.pos < 0 || (size_t)eol.pos + 1 > PROTO_LINE_MAX) {
			ev->overlong(arg);
			continue;
		}
		if (!evbuffer_pullup(in, (ev_ssize_t)eol.pos + 1))
			die("out of memory");
	}
}
