/* One of the cache's helper processes and its socket, from the racer's
 * side (cache_link.c): started through spawn.h, its messages (cache_msg.h)
 * written and read, in the event loop or blocking, and its end reaped
 * with its exit status. What a message means is the store's (cache.c),
 * through the link's functions. */
#ifndef RACER_CACHE_LINK_H
#define RACER_CACHE_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "racer/cache_msg.h"

struct event;

struct link {
	const char *name;   /* "reader", "writer": for messages */
	uint32_t expect;    /* the types it may send (CMSG_BIT) */
	/* a message from it; its end: gone (its socket closed: status says
	 * how), or broken (it sent what it may not: why says what) */
	void (*on_message)(const struct link *l, const struct cmsg *m);
	void (*on_end)(const struct link *l, const char *broken);
	/* its socket took more of what was queued (in the loop; may be NULL) */
	void (*on_sent)(const struct link *l);
	pid_t pid;          /* -1: none (not started, or reaped) */
	int fd;
	struct cmsg_buf in, out;
	struct event *rev, *wev;
	bool exited;        /* status is its exit status */
	int status;
};

/* Forks the helper run(arg) with a socket to it; *arg_fd is set to the
 * helper's end first. False (errno) when it cannot. */
bool link_start(struct link *l, int (*run)(void *), void *arg, int *arg_fd);
bool link_alive(const struct link *l);
/* In base's loop from here on: its socket does not block, its messages
 * come through on_message as they arrive. */
void link_watch(struct link *l, struct event_base *base);
/* Sends what is queued, as far as its socket takes it (the rest when it
 * can: in the loop). */
void link_send(struct link *l);
/* Blocking, with nothing else to do meanwhile: sends what is queued and
 * handles its messages until done() or until it is silent for silence_ms.
 * 1: done; 0: silent that long; -1: it ended (on_end was called). */
int link_wait(struct link *l, int silence_ms, bool (*done)(void));
/* Its end: kill_it, SIGKILL; else the end of its input, and a wait for
 * its end (SIGKILL after a while). Then reaped: status. */
void link_stop(struct link *l, bool kill_it);
/* What a helper's end (on_end) says of the store in dir: CF_DAMAGED, why
 * says how (a fault on the file, an end in the middle of its work), or
 * CF_ERROR, why says why else (killed, broken, an end while the
 * environment opened: opening, then the file is not to blame). */
enum cmsg_fail link_why_ended(const struct link *l, const char *dir, bool opening, const char *broken, char *why,
			      size_t whysz);

#endif
