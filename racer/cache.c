/* The result cache (DESIGN.md "The cache"), the racer's side: an LMDB store
 * shared safely by racers running at once (one writer at a time, readers
 * never wait), read and written by two helper processes forked when it is
 * opened (cache_lmdb.h: the reader, the writer), never by the racer. They
 * talk in cache_msg.h's messages over a socket each.
 *
 * Look-ups go out a batch at a time (store_batch_begin/end bracket the
 * racer's runs of puzzles) and their answers come back in the order asked,
 * each checked here against the puzzle (cache_check: a tampered value,
 * another puzzle's, a wrong solution are bad: dropped) before the race is
 * told (store_reply). A hit the reader finds worth it is written down as a
 * use.
 *
 * Writes go to the writer, which commits them in batches. What waits for
 * it here is bounded (BACKLOG_MAX): when the writer falls that far behind
 * (a cold run of easy puzzles answers faster than a disk takes them), the
 * input pauses until it has taken half of it (store_backlogged), so that
 * memory stays flat and the run's answers are all kept; the pauses are
 * counted (--stats). A writer that takes nothing for STALL_MS meanwhile is
 * given up until it has caught up: writes are dropped then, and counted.
 *
 * A helper that reports a failure, dies (a fault on a damaged file: SIGBUS,
 * SIGSEGV, LMDB's abort) or falls silent costs the cache, never the run:
 * one warning, the look-ups in flight answered as misses (the puzzles are
 * raced), and for damage the store set aside (renamed) so that the next
 * racer starts a new one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer.h"
#include "racer/cache.h"
#include "racer/cache_asked.h"
#include "racer/cache_link.h"
#include "racer/cache_lmdb.h"
#include "racer/stats.h"

#define OPEN_SILENCE_MS 10000
#define FINISH_SILENCE_MS 30000
/* look-ups asked and no answer for this long: the reader is stuck (looked
 * at every WATCH_MS) */
#define SILENCE_MS 10000
#define WATCH_MS 1000
/* bytes of writes waiting for the writer; past it, the racer waits */
#define BACKLOG_MAX ((size_t)8 << 20)
#define STALL_MS 2000
/* without an event loop (the cache commands): writes go out at this much */
#define SEND_AT ((size_t)64 << 10)

static void on_message(const struct link *l, const struct cmsg *m);
static void on_end(const struct link *l, const char *broken);

static struct link reader = {
	.name = "reader",
	.expect = CMSG_BIT(CM_MAPPED) | CMSG_BIT(CM_OPENED) | CMSG_BIT(CM_HIT) | CMSG_BIT(CM_MISS) |
		  CMSG_BIT(CM_BAD) | CMSG_BIT(CM_ENTRY) | CMSG_BIT(CM_WALK_END) | CMSG_BIT(CM_FAILED),
	.on_message = on_message,
	.on_end = on_end,
	.pid = -1,
	.fd = -1,
};
static struct link writer = {
	.name = "writer",
	.expect = CMSG_BIT(CM_WRITTEN) | CMSG_BIT(CM_FLUSHED) | CMSG_BIT(CM_CLEARED) | CMSG_BIT(CM_FAILED),
	.on_message = on_message,
	.on_end = on_end,
	.pid = -1,
	.fd = -1,
};
/* the reader's environment is open: a fault from here on is the file's */
static bool reader_mapped;
static struct cache_helper_args args;

static bool enabled, opening, failed_once, quiet;
static char fail_msg[9000];
/* cache clear: a damaged store is removed, not set aside */
static bool remove_damaged, removed;
static size_t cap_bytes;
static bool in_batch;
static struct event *send_ev, *watch_ev, *stall_ev;
static void backlog_check(void);
static void stall_cb(evutil_socket_t fd, short what, void *arg);
static uint64_t answers, answers_seen; /* look-ups answered; as the watch saw them */
static int silent_ms;
static bool send_due;
static uint64_t flush_token, flushed_token;
/* the waits for the writer: how many, how long; while stuck, none */
static long stalls;
static double stalled_ms;
static bool writer_stuck;
static bool opened, cleared;
static uint64_t cleared_entries;
/* cache_each's visitor, while a walk is on */
static cache_visit walk_fn;
static void *walk_arg;
static bool walk_done;

static void store_failed(enum cmsg_fail kind, const char *why);

/* --- damage --- */

/* The store is damaged: set aside (or removed, for cache clear), and msg
 * says so. The helpers are gone by now. */
static void set_aside(const char *why, char *msg, size_t msgsz)
{
	char data[CACHE_DIR_MAX + 16], lock[CACHE_DIR_MAX + 16], aside[CACHE_DIR_MAX + 128];
	snprintf(data, sizeof data, "%s/data.mdb", args.dir);
	snprintf(lock, sizeof lock, "%s/lock.mdb", args.dir);
	if (remove_damaged) {
		if (unlink(data) < 0 && errno != ENOENT)
			snprintf(msg, msgsz, "%s is damaged (%s) and cannot be removed: %s", data, why,
				 strerror(errno));
		else
			snprintf(msg, msgsz, "%s was damaged (%s): removed", data, why);
		removed = true;
		unlink(lock);
		return;
	}
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
	snprintf(aside, sizeof aside, "%s.damaged-%s-%ld", data, stamp, (long)getpid());
	/* the lock file first: a racer that opens the directory now makes a
	 * new one, never pairs the old lock with a new data file */
	unlink(lock);
	if (rename(data, aside) == 0)
		snprintf(msg, msgsz, "%s is damaged (%s); set aside as %s", data, why, aside);
	else if (errno == ENOENT)
		snprintf(msg, msgsz, "%s is damaged (%s); another racer has set it aside", data, why);
	else
		snprintf(msg, msgsz, "%s is damaged (%s) and cannot be set aside: %s", data, why, strerror(errno));
}

/* --- the helpers' ends --- */

static void on_end(const struct link *h, const char *broken)
{
	char why[CACHE_DIR_MAX + 512];
	enum cmsg_fail kind = link_why_ended(h, args.dir, h == &reader && !reader_mapped, broken, why, sizeof why);
	store_failed(kind, why);
}

/* --- look-ups --- */

/* A look-up answered as a miss without the store (it is gone): from the
 * loop's next turn, as the answer may be found inside a call of the
 * race's. */
static void missed(uint64_t seq)
{
	stats_cache_add(CC_MISSES, 1);
	store_reply_later(seq, CACHE_MISS, NULL, NULL);
}

static void send_soon(void);

static void drop_entry(const uint8_t *key)
{
	if (writer.pid > 0 && cmsg_buf_pending(&writer.out) < BACKLOG_MAX) {
		cmsg_put(&writer.out, CM_DELETE, 0, key, CACHE_KEY_LEN, NULL, 0);
		send_soon();
	}
}

/* The reader's answer to the oldest look-up in flight. */
static void answered(const struct cmsg *m)
{
	if (!asked_any() || asked_oldest_seq() != m->id) {
		store_failed(CF_ERROR, "the cache's reader process answered a look-up not asked");
		return;
	}
	union grid_room room;
	struct grid *puzzle = &room.grid;
	struct cache_entry e;
	struct cache_asked asked;
	/* the puzzle only where a value found is checked against it */
	asked_pop(&asked, m->type == CM_HIT ? puzzle : NULL);
	answers++;
	char why[GRID_ERR_MAX + 64];
	enum cache_result r = CACHE_MISS;
	if (m->type == CM_BAD) {
		cmsg_text_of(m, why, sizeof why);
		r = CACHE_BAD;
	} else if (m->type == CM_HIT) {
		r = cache_check(puzzle, m->data + 1, m->len - 1, &e, why, sizeof why);
	}
	if (r == CACHE_HIT) {
		stats_cache_add(CC_HITS, 1);
		if (m->data[0] && writer.pid > 0 && cmsg_buf_pending(&writer.out) < BACKLOG_MAX) {
			cmsg_put(&writer.out, CM_TOUCH, 0, asked.key, CACHE_KEY_LEN, NULL, 0);
			send_soon();
		}
	} else if (r == CACHE_BAD) {
		stats_cache_add(CC_BAD, 1);
		drop_entry(asked.key);
	} else {
		stats_cache_add(CC_MISSES, 1);
	}
	store_reply(asked.seq, r, r == CACHE_HIT ? &e : NULL, r == CACHE_BAD ? why : NULL);
}

static void walked(const struct cmsg *m)
{
	if (m->type == CM_WALK_END) {
		walk_done = true;
		return;
	}
	union grid_room puzzle;
	struct cache_entry e;
	char why[128];
	int d = cache_decode(m->data + CACHE_KEY_LEN, m->len - CACHE_KEY_LEN, &puzzle.grid, &e, why, sizeof why);
	if (walk_fn)
		walk_fn(d > 0 ? &puzzle.grid : NULL, d > 0 ? &e : NULL, d, walk_arg);
}

/* One message from a helper. */
static void on_message(const struct link *h, const struct cmsg *m)
{
	struct cmsg_failed f;
	struct cmsg_opened o;
	uint64_t a, b;
	switch (m->type) {
	case CM_MAPPED:
		reader_mapped = h == &reader;
		break;
	case CM_OPENED:
		if (cmsg_opened_of(m, &o)) {
			cap_bytes = (size_t)o.cap_bytes;
			opened = true;
		}
		break;
	case CM_HIT:
	case CM_MISS:
	case CM_BAD:
		answered(m);
		break;
	case CM_ENTRY:
	case CM_WALK_END:
		walked(m);
		break;
	case CM_WRITTEN:
		if (cmsg_counts_of(m, &a, &b)) {
			stats_cache_add(CC_WRITTEN, (long)a);
			stats_cache_add(CC_EVICTED, (long)b);
		}
		break;
	case CM_FLUSHED:
		flushed_token = m->id;
		break;
	case CM_CLEARED:
		if (cmsg_counts_of(m, &a, NULL)) {
			cleared_entries = a;
			cleared = true;
		}
		break;
	case CM_FAILED:
		if (cmsg_failed_of(m, &f))
			store_failed(f.kind, f.text);
		break;
	default:
		break;
	}
}

static void on_send(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	send_due = false;
	link_send(&reader);
	link_send(&writer);
	backlog_check();
}

/* The writer's socket took more of the backlog. */
static void writer_took(const struct link *l)
{
	(void)l;
	backlog_check();
}

/* Writes go out at the end of the loop's turn, all of the turn's at once;
 * without a loop, as they reach SEND_AT. */
static bool writer_sent(void)
{
	return !cmsg_buf_pending(&writer.out);
}

static void send_soon(void)
{
	if (!base) {
		if (cmsg_buf_pending(&writer.out) >= SEND_AT)
			link_wait(&writer, FINISH_SILENCE_MS, writer_sent);
		return;
	}
	if (!send_due && send_ev) {
		send_due = true;
		event_active(send_ev, EV_TIMEOUT, 0);
	}
}

static void on_watch(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	bool waiting = link_alive(&reader) && asked_any();
	silent_ms = waiting && answers == answers_seen ? silent_ms + WATCH_MS : 0;
	answers_seen = answers;
	if (silent_ms >= SILENCE_MS) {
		char why[CACHE_DIR_MAX + 128];
		snprintf(why, sizeof why, "%s: no answer from the cache's reader process for %d s", args.dir,
			 SILENCE_MS / 1000);
		kill(reader.pid, SIGKILL);
		store_failed(CF_ERROR, why);
	}
}

/* The store cannot go on: the helpers gone, the look-ups in flight
 * answered as misses, a damaged store set aside; one warning (or, while
 * opening or in a command that says it itself, fail_msg alone). */
static void store_failed(enum cmsg_fail kind, const char *why)
{
	char text[CMSG_TEXT_MAX + 1];
	snprintf(text, sizeof text, "%s", why);
	bool was = enabled || opening;
	enabled = false;
	/* after a fault, nothing of what they hold is worth waiting for */
	link_stop(&reader, true);
	link_stop(&writer, true);
	if (!was)
		return;
	if (kind == CF_DAMAGED)
		set_aside(text, fail_msg, sizeof fail_msg);
	else
		snprintf(fail_msg, sizeof fail_msg, "%s", text);
	asked_drain(missed); /* every look-up in flight */
	if (watch_ev)
		event_del(watch_ev);
	if (!opening && !quiet && !failed_once)
		warn("cache: %s; going on without the cache", fail_msg);
	failed_once = true;
}

/* link_wait, and silence past ms a failure of the store: "DIR: what in N s". */
static int wait_or_fail(struct link *l, int ms, bool (*done)(void), const char *what)
{
	int r = link_wait(l, ms, done);
	if (r == 0) {
		char why[CACHE_DIR_MAX + 128];
		snprintf(why, sizeof why, "%s: %s in %d s", args.dir, what, ms / 1000);
		store_failed(CF_ERROR, why);
	}
	return r;
}

/* --- the store's life --- */

static bool is_opened(void)
{
	return opened;
}

int cache_open(const char *dir, bool readonly, char *err, size_t errsz)
{
	memset(&args, 0, sizeof args);
	snprintf(args.dir, sizeof args.dir, "%s", dir);
	args.cap_bytes = opt.cache_size;
	args.readonly = readonly;
	opening = true;
	opened = false;
	fail_msg[0] = '\0';
	int r = -1;
	reader_mapped = false;
	if (!link_start(&reader, cache_reader_main, &args, &args.fd)) {
		snprintf(fail_msg, sizeof fail_msg, "%s: cannot start the cache's process: %s", dir, strerror(errno));
	} else {
		r = wait_or_fail(&reader, OPEN_SILENCE_MS, is_opened, "the cache's process did not open it");
	}
	if (r == 1 && !readonly && !link_start(&writer, cache_writer_main, &args, &args.fd)) {
		snprintf(fail_msg, sizeof fail_msg, "%s: cannot start the cache's process: %s", dir, strerror(errno));
		link_stop(&reader, true);
		r = -1;
	}
	opening = false;
	if (r != 1) {
		if (!fail_msg[0])
			snprintf(fail_msg, sizeof fail_msg, "%s: the cache's process could not be reached", dir);
		link_stop(&reader, true);
		snprintf(err, errsz, "%s", fail_msg);
		return -1;
	}
	enabled = true;
	if (base) {
		link_watch(&reader, base);
		link_watch(&writer, base);
		send_ev = event_new(base, -1, 0, on_send, NULL);
		stall_ev = evtimer_new(base, stall_cb, NULL);
		writer.on_sent = writer_took;
		watch_ev = event_new(base, -1, EV_PERSIST, on_watch, NULL);
		struct timeval tv = ms_tv(WATCH_MS);
		if (!send_ev || !watch_ev || event_add(watch_ev, &tv) < 0)
			die("out of memory");
	}
	return 0;
}

bool cache_enabled(void)
{
	return enabled;
}

size_t cache_limit(void)
{
	return cap_bytes;
}

void cache_batch_begin(void)
{
	in_batch = true;
}

void cache_batch_end(void)
{
	in_batch = false;
	link_send(&reader);
}

void cache_lookup(uint64_t seq, const struct grid *puzzle)
{
	if (!enabled) {
		missed(seq);
		return;
	}
	uint8_t key[CACHE_KEY_LEN];
	cache_key(puzzle, key);
	asked_push(seq, key, puzzle);
	cmsg_put(&reader.out, CM_LOOKUP, seq, key, sizeof key, NULL, 0);
	if (!in_batch)
		cache_batch_end();
}

/* The writer's backlog. At BACKLOG_MAX the store says so (store_backlogged:
 * the input pauses) and times the writer: one that takes nothing for
 * STALL_MS is given up for the run's writes (dropped, counted), so that a
 * stopped writer cannot stop the run. Below half of it the input resumes
 * (the drained hook). */
static uint64_t backlog_since_ns; /* 0: not backlogged */
static size_t backlog_seen;
static void (*drained)(void);

static void backlog_check(void)
{
	size_t pending = cmsg_buf_pending(&writer.out);
	if (!backlog_since_ns && !writer_stuck && pending >= BACKLOG_MAX) {
		backlog_since_ns = now_ns();
		backlog_seen = pending;
		stalls++;
		if (stall_ev) {
			struct timeval tv = ms_tv(STALL_MS);
			evtimer_add(stall_ev, &tv);
		}
	} else if ((backlog_since_ns || writer_stuck) && pending <= BACKLOG_MAX / 2) {
		if (backlog_since_ns)
			stalled_ms += ms_since(backlog_since_ns);
		backlog_since_ns = 0;
		writer_stuck = false;
		if (stall_ev)
			evtimer_del(stall_ev);
		if (drained)
			drained();
	}
}

static void stall_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	size_t pending = cmsg_buf_pending(&writer.out);
	if (!backlog_since_ns)
		return;
	if (pending < backlog_seen) {
		/* it takes them, slowly: look again later */
		backlog_seen = pending;
		struct timeval tv = ms_tv(STALL_MS);
		evtimer_add(stall_ev, &tv);
		return;
	}
	stalled_ms += ms_since(backlog_since_ns);
	backlog_since_ns = 0;
	writer_stuck = true;
	if (drained)
		drained();
}

bool cache_backlogged(void)
{
	return backlog_since_ns != 0;
}

void cache_on_drained(void (*fn)(void))
{
	drained = fn;
}

/* Room in the writer's backlog: in the loop, a write waits in it (the
 * input pauses first: backlog_check), unless the writer was given up; the
 * commands, without a loop, wait for the writer to take half of it. */
static bool backlog_halved(void)
{
	return cmsg_buf_pending(&writer.out) <= BACKLOG_MAX / 2;
}

static bool writer_room(void)
{
	if (base) {
		backlog_check();
		return !writer_stuck;
	}
	if (cmsg_buf_pending(&writer.out) < BACKLOG_MAX)
		return true;
	return link_wait(&writer, STALL_MS, backlog_halved) == 1;
}

void cache_put(const struct grid *puzzle, const struct cache_entry *e)
{
	if (!enabled || writer.pid < 0)
		return;
	if (!writer_room()) {
		stats_cache_add(CC_DROPPED, 1);
		return;
	}
	static uint8_t value[CACHE_HEADER + 2 * GRID_MAX_CELLS];
	uint8_t key[CACHE_KEY_LEN];
	size_t len = cache_encode(puzzle, e, value, sizeof value);
	cache_key(puzzle, key);
	cmsg_put(&writer.out, CM_PUT, 0, key, sizeof key, value, len);
	send_soon();
}

void cache_flush(void)
{
	if (!enabled || writer.pid < 0)
		return;
	cmsg_put(&writer.out, CM_FLUSH, ++flush_token, NULL, 0, NULL, 0);
	if (base)
		link_send(&writer);
}

static bool is_flushed(void)
{
	return flushed_token == flush_token;
}

int cache_finish(void)
{
	if (!enabled || writer.pid < 0)
		return enabled ? 0 : -1;
	if (flushed_token != flush_token || cmsg_buf_pending(&writer.out) || !flush_token)
		cache_flush();
	/* blocking from here: the loop is over */
	if (writer.wev)
		event_del(writer.wev);
	int r = wait_or_fail(&writer, FINISH_SILENCE_MS, is_flushed, "the cache's writer process did not finish");
	return r == 1 ? 0 : -1;
}

void cache_close(void)
{
	enabled = false;
	link_stop(&reader, false);
	link_stop(&writer, false);
	if (send_ev)
		event_free(send_ev);
	if (watch_ev)
		event_free(watch_ev);
	if (stall_ev)
		event_free(stall_ev);
	send_ev = watch_ev = stall_ev = NULL;
	send_due = false;
	asked_free();
}

void cache_stats(FILE *f)
{
	long dropped = stats_cache_get(CC_DROPPED);
	if (stalls)
		fprintf(f, "%s: cache: the input paused %.0f ms for the store's writer to catch up (%ld times)\n",
			PROGRAM, stalled_ms, stalls);
	if (dropped)
		fprintf(f, "%s: cache: %ld writes dropped: the store's writer fell behind\n", PROGRAM, dropped);
}

/* --- for the commands --- */

static bool is_walked(void)
{
	return walk_done;
}

int cache_each(cache_visit fn, void *arg, char *err, size_t errsz)
{
	if (!enabled) {
		snprintf(err, errsz, "%s: not open", args.dir);
		return -1;
	}
	walk_fn = fn;
	walk_arg = arg;
	walk_done = false;
	quiet = true;
	cmsg_put(&reader.out, CM_WALK, 0, NULL, 0, NULL, 0);
	int r = wait_or_fail(&reader, FINISH_SILENCE_MS, is_walked, "the cache's reader process did not answer");
	quiet = false;
	walk_fn = NULL;
	if (r != 1) {
		snprintf(err, errsz, "%s", fail_msg);
		return -1;
	}
	return 0;
}

static bool is_cleared(void)
{
	return cleared;
}

int cache_clear(const char *dir, size_t *entries, char *msg, size_t msgsz)
{
	remove_damaged = true;
	*entries = 0;
	if (cache_open(dir, false, msg, msgsz) < 0)
		return removed ? 1 : -1;
	quiet = true;
	cleared = false;
	cmsg_put(&writer.out, CM_CLEAR, 0, NULL, 0, NULL, 0);
	int r = wait_or_fail(&writer, FINISH_SILENCE_MS, is_cleared, "the cache's writer process did not clear it");
	quiet = false;
	cache_close();
	if (removed || r != 1)
		snprintf(msg, msgsz, "%s", fail_msg);
	if (r != 1)
		return removed ? 1 : -1;
	*entries = (size_t)cleared_entries;
	return 0;
}
