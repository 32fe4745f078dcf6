/* The look-ups' answers, on their way to the function store_open was
 * given (store_reply.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "lib/common.h"
#include "racer/store_reply.h"

/* The loop the stores answer in (NULL: a `cache` command, no loop). */
struct event_base *base;

static store_reply_fn reply_fn;
static void *reply_owner;

/* Answers that wait for the loop's next turn. */
struct later {
	uint64_t seq;
	enum cache_result r;
	struct cache_entry *e;
	char *bad;
};
static struct later *later;
static size_t nlater, caplater;
static struct event *later_ev;

void store_reply_init(struct event_base *loop, store_reply_fn fn, void *owner)
{
	base = loop;
	reply_fn = fn;
	reply_owner = owner;
}

void store_reply(uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad)
{
	if (reply_fn)
		reply_fn(reply_owner, seq, r, e, bad);
}

static void answer_later_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	/* answers may come while these go out: taken as a whole first */
	struct later *v = later;
	size_t n = nlater;
	later = NULL;
	nlater = caplater = 0;
	for (size_t i = 0; i < n; i++) {
		store_reply(v[i].seq, v[i].r, v[i].e, v[i].bad);
		free(v[i].e);
		free(v[i].bad);
	}
	free(v);
}

void store_reply_later(uint64_t seq, enum cache_result r, const struct cache_entry *e, const char *bad)
{
	if (nlater == caplater) {
		caplater = caplater ? 2 * caplater : 64;
		later = xrealloc(later, caplater * sizeof *later);
	}
	struct later *l = &later[nlater++];
	l->seq = seq;
	l->r = r;
	l->e = NULL;
	l->bad = NULL;
	if (e) {
		l->e = xmalloc(sizeof *l->e);
		*l->e = *e;
	}
	if (bad)
		l->bad = xstrdup(bad);
	if (!later_ev) {
		later_ev = event_new(base, -1, 0, answer_later_cb, NULL);
		if (!later_ev)
			die("out of memory");
	}
	if (nlater == 1)
		event_active(later_ev, EV_TIMEOUT, 0);
}


void store_reply_free(void)
{
	for (size_t i = 0; i < nlater; i++) {
		free(later[i].e);
		free(later[i].bad);
	}
	free(later);
	later = NULL;
	nlater = caplater = 0;
	if (later_ev)
		event_free(later_ev);
	later_ev = NULL;
}
