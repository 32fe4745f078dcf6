/* Puzzles from the input (input.h), fed to the reader from an evbuffer. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "racer/input.h"
#include "racer/options.h"
#include "racer/queue.h"
#include "racer/util.h"

#define CHUNK 65536
/* Room for the input to go on; to go on once paused (not for every slot
 * freed: a pump reads a run of lines). */
#define TAKE_AT 2
#define RESUME_AT 64

static char **names;
static int nnames, cur = -1;
static const char *name; /* NULL: standard input */
static int fd = -1;
static bool pollable;    /* a pipe, socket or terminal: read when the loop says so */
static bool at_eof, paused, all_done, started, stopped;
static long lineno;
static bool discarding;  /* inside a line longer than PUZZLE_LINE_MAX */
static bool need_more;   /* every whole line buffered was taken: read on */
static struct puzzle_stream ps;
/* --byte-range (opt.range_from >= 0): where the one input is read now
 * (pread: a part shares its standard input's file offset with the others) */
static off_t range_pos;
static struct evbuffer *buf;
static struct event *read_ev, *pump_ev;
static struct event_base *ev_base;
static const struct input_hooks *hooks;

static void pump_cb(evutil_socket_t fd, short what, void *arg);

void input_init(struct event_base *base, char **argv, int n, const struct input_hooks *h)
{
	ev_base = base;
	hooks = h;
	names = argv;
	nnames = n;
	buf = evbuffer_new();
	pump_ev = event_new(base, -1, 0, pump_cb, NULL);
	if (!buf || !pump_ev)
		die("out of memory");
}

static bool can_take(int slots)
{
	return hooks->can_take((uint64_t)slots);
}

static void feed(const char *line, size_t len)
{
	bool again;
	do {
		enum stream_event ev = puzzle_stream_feed(&ps, line, len, lineno, queue_next_item(), &again);
		if (ev != STREAM_NONE)
			queue_add(ev, name);
	} while (again);
}

static void overlong(long line)
{
	bool again;
	enum stream_event ev = puzzle_stream_overlong(&ps, line, queue_next_item(), &again);
	if (ev != STREAM_NONE)
		queue_add(ev, name);
}

/* Turns the buffered lines into puzzles, as many as there is room for. */
static void process(void)
{
	size_t len = evbuffer_get_length(buf);
	need_more = true;
	if (!len)
		return;
	const char *data = (const char *)evbuffer_pullup(buf, -1);
	size_t pos = 0;
	queue_batch_begin();
	while (pos < len) {
		if (!can_take(TAKE_AT)) {
			paused = true;
			need_more = false;
			break;
		}
		const char *start = data + pos;
		const char *nl = memchr(start, '\n', len - pos);
		if (!nl) {
			if (discarding) {
				pos = len;
			} else if (len - pos > PUZZLE_LINE_MAX) {
				/* said as it passes the bound: a line may never end
				 * (< /dev/zero); the rest of it is skipped */
				overlong(++lineno);
				discarding = true;
				pos = len;
			} else if (at_eof) {
				/* the last line, without its LF */
				lineno++;
				feed(start, len - pos);
				pos = len;
			}
			break;
		}
		size_t l = (size_t)(nl - start);
		pos += l + 1;
		if (discarding) {
			discarding = false; /* the end of a line said already */
			continue;
		}
		lineno++;
		if (l > PUZZLE_LINE_MAX)
			overlong(lineno);
		else
			feed(start, l);
	}
	evbuffer_drain(buf, pos);
	queue_batch_end();
}

static void open_next(void);

/* The source is read to its end and every line is in: on to the next. */
static void end_source(void)
{
	queue_batch_begin();
	discarding = false;
	enum stream_event ev = puzzle_stream_finish(&ps, queue_next_item());
	if (ev != STREAM_NONE)
		queue_add(ev, name);
	queue_batch_end();
	if (read_ev) {
		event_free(read_ev);
		read_ev = NULL;
	}
	if (fd > STDERR_FILENO)
		close(fd);
	fd = -1;
	open_next();
}

/* read_into, within --byte-range */
static ssize_t read_range(void)
{
	off_t left = opt.range_to < 0 ? CHUNK : opt.range_to - range_pos;
	if (left <= 0)
		return 0;
	ssize_t n = pread_into(buf, fd, left < CHUNK ? (size_t)left : CHUNK, range_pos);
	if (n > 0)
		range_pos += n;
	return n;
}

static void read_chunk(void)
{
	ssize_t n = opt.range_from >= 0 ? read_range() : read_into(buf, fd, CHUNK);
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return;
		warn("%s: %s", name ? name : "standard input", strerror(errno));
		hooks->failed();
		at_eof = true;
	} else if (n == 0) {
		at_eof = true;
	}
}

/* What to do after lines were processed: wait for room, read on, or end. */
static void next_step(void)
{
	if (paused || all_done) {
		if (read_ev)
			event_del(read_ev);
		return;
	}
	if (at_eof) {
		if (evbuffer_get_length(buf) == 0 || !can_take(TAKE_AT)) {
			if (can_take(TAKE_AT))
				end_source();
			else
				paused = true;
		} else {
			event_active(pump_ev, EV_TIMEOUT, 0);
		}
		return;
	}
	if (pollable)
		event_add(read_ev, NULL);
	else
		event_active(pump_ev, EV_TIMEOUT, 0);
}

static void readable_cb(evutil_socket_t f, short what, void *arg)
{
	(void)f;
	(void)what;
	(void)arg;
	read_chunk();
	process();
	next_step();
}

static void pump_cb(evutil_socket_t f, short what, void *arg)
{
	(void)f;
	(void)what;
	(void)arg;
	if (paused || all_done || fd < 0)
		return;
	if (!pollable && !at_eof && need_more)
		read_chunk();
	process();
	next_step();
}

static void open_next(void)
{
	for (;;) {
		cur++;
		if (cur >= (nnames ? nnames : 1)) {
			all_done = true;
			hooks->ended();
			return;
		}
		const char *arg = nnames ? names[cur] : "-";
		if (strcmp(arg, "-") == 0) {
			name = NULL;
			fd = STDIN_FILENO;
		} else {
			name = arg;
			fd = open(arg, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				warn("%s: %s", arg, strerror(errno));
				hooks->failed();
				continue;
			}
		}
		struct stat st;
		pollable = fstat(fd, &st) == 0 &&
			   (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || isatty(fd));
		if (opt.range_from >= 0) {
			if (pollable || !S_ISREG(st.st_mode))
				die("--byte-range: %s is not a regular file", name ? name : "standard input");
			range_pos = opt.range_from;
		}
		at_eof = discarding = false;
		need_more = true;
		lineno = opt.line_offset; /* a block of a larger input: its numbers */
		puzzle_stream_init(&ps);
		if (pollable) {
			read_ev = event_new(ev_base, fd, EV_READ | EV_PERSIST, readable_cb, NULL);
			if (!read_ev)
				die("out of memory");
			if (event_add(read_ev, NULL) < 0) {
				/* not something the loop can watch: plain reads then */
				event_free(read_ev);
				read_ev = NULL;
				pollable = false;
			} else if (paused) {
				event_del(read_ev);
			}
		}
		if (!pollable && !paused)
			event_active(pump_ev, EV_TIMEOUT, 0);
		return;
	}
}

void input_start(void)
{
	started = true;
	open_next();
}

void input_stop(void)
{
	stopped = paused = true;
	if (read_ev)
		event_del(read_ev);
}

void input_resume(void)
{
	if (!paused || stopped || all_done || !started || !can_take(RESUME_AT))
		return;
	paused = false;
	event_active(pump_ev, EV_TIMEOUT, 0);
}

bool input_done(void)
{
	return all_done;
}

void input_position(int *index, long *line)
{
	*index = cur < 0 ? 0 : cur;
	*line = lineno;
}

void input_free(void)
{
	if (read_ev)
		event_free(read_ev);
	if (pump_ev)
		event_free(pump_ev);
	if (buf)
		evbuffer_free(buf);
	if (fd > STDERR_FILENO)
		close(fd);
	read_ev = pump_ev = NULL;
	buf = NULL;
}
