/* One worker process, an explicit state machine (tmux's job.c is the
 * model): spawn, the pipes, hello, the attempts in flight, cancel with a
 * grace period, and the end. It reports through the callbacks its owner
 * gives it and names no caller; what an answer means, and what to do
 * after an end, is the owner's.
 *
 *   NEW --proc_spawn--> STARTING --hello accepted--> IDLE <--> BUSY
 *   BUSY --a cancel waits for its acknowledgement--> CANCELLING --> BUSY, IDLE
 *   STARTING, IDLE, BUSY, CANCELLING --proc_stop, death, EPIPE, grace
 *     over, a broken line--> STOPPING (SIGTERM to its group, SIGKILL after
 *     the grace) --reaped and its output ended--> DEAD --proc_spawn--> STARTING */
#ifndef RACER_PROC_H
#define RACER_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/message.h"
#include "racer/frame.h"
#include "racer/outcome.h"

struct attempt;
struct proc;
struct worker_spec;
struct event_base;

struct proc_events {
	/* Its hello: h, or NULL and why it is not one. The owner accepts it
	 * (true: the process is ready) or not (it stops it). */
	bool (*hello)(void *owner, struct proc *p, const struct msg_hello *h, const char *why);
	/* A final message about a (removed from the queue first); one whose
	 * fields are malformed comes as MSG_ERROR (it answered, wrongly). */
	void (*answer)(void *owner, struct proc *p, struct attempt *a, const struct msg_reply *r);
	void (*progress)(void *owner, struct proc *p, struct attempt *a, const struct msg *m);
	/* a was in flight when the process ended (why) or was stopped. */
	void (*lost)(void *owner, struct proc *p, struct attempt *a, enum outcome why);
	/* DEAD: ended, waited for, its output closed. */
	void (*ended)(void *owner, struct proc *p);
};

enum proc_state {
	PROC_NEW,        /* never started */
	PROC_STARTING,   /* spawned, waiting for hello */
	PROC_IDLE,       /* nothing in flight */
	PROC_BUSY,       /* attempts in flight */
	PROC_CANCELLING, /* a cancel waits for its acknowledgement (the grace timer) */
	PROC_STOPPING,   /* signalled or told to quit: waiting for it to end */
	PROC_DEAD,       /* ended and waited for */
};

struct proc {
	int index;                 /* the owner's number for it */
	const struct worker_spec *spec;
	int nice;                  /* added to its niceness at spawn */
	const struct proc_events *ev;
	void *owner;
	enum proc_state state;
	pid_t pid;                 /* also its process group */
	bool eof, reaped;
	bool abandoned;            /* SIGKILLed in its start at shutdown: not waited for */
	int wstatus;
	enum outcome why;          /* what its attempts in flight become when it ends */
	bool strike;               /* its end counts against its entry */
	bool was_starting;         /* it ended before hello */
	char start_error[96];      /* why proc_spawn could not start it ("": it could) */
	struct event_base *base;
	struct event *from;        /* its standard output: read 64 kB at a time */
	struct evbuffer *from_buf;
	struct bufferevent *to;    /* its standard input */
	struct event *timer;       /* hello timeout, cancel grace, kill after SIGTERM */
	/* the attempts in flight, in the order sent: queue[head .. head + n) */
	struct attempt **queue;
	int head, n, cap;
	int ncancels;              /* of those, cancelled and not acknowledged */
	int found;                 /* where the last one looked up was (a hint) */
	uint64_t spawned_ns;
	uint64_t head_ns;          /* when the head attempt became the head */
	double slowest_ack_ms;     /* of its cancels lately (fading): the grace follows it */
	/* bulk frames (PROTOCOL.md 13), when its hello says bulk=1 and
	 * --no-bulk is not given: the solves of a loop turn go out as one
	 * frame, its records gathered here until flush_ev runs */
	bool bulk;
	struct event *flush_ev;
	struct solves_frame frame;
};

void proc_init(struct proc *p, int index, const struct worker_spec *s, int nice,
	       const struct proc_events *ev, void *owner, struct event_base *base);
/* NEW or DEAD -> STARTING. A failed spawn ends it at once (ended() is
 * called, a strike, like a death; start_error says why). */
void proc_spawn(struct proc *p);
/* Ready for attempts: said hello, not ending. */
bool proc_ready(const struct proc *p);
/* Ready, and not too far behind to take one more. */
bool proc_can_send(const struct proc *p);
bool proc_finished(const struct proc *p);
/* The attempts in flight; the head (the one it works on), or NULL. */
static inline int proc_queued(const struct proc *p)
{
	return p->n;
}
static inline struct attempt *proc_at(const struct proc *p, int i)
{
	return p->queue[p->head + i];
}
static inline struct attempt *proc_head(const struct proc *p)
{
	return p->n ? p->queue[p->head] : NULL;
}
/* Whether it takes bulk frames (PROTOCOL.md 13): its hello said bulk=1,
 * and --no-bulk is not given. */
static inline bool proc_frames(const struct proc *p)
{
	return p->bulk;
}
/* Sends a solve: the codec's record, with its seed or without. */
void proc_send_solve(struct proc *p, struct attempt *a, const struct msg_solve_record *rec, bool with_seed);
/* To a process that takes frames: a solve of g with fields f, a record of
 * the loop turn's frame (its head carries f). */
void proc_send_framed(struct proc *p, struct attempt *a, const struct grid *g, const struct msg_solve_fields *f);
void proc_send_cancel(struct proc *p, struct attempt *a);
/* Ends it: SIGTERM to its group, SIGKILL after the grace. why: what its
 * attempts become (lost() for each); strike: whether the end counts
 * against its entry. */
void proc_stop(struct proc *p, enum outcome why, bool strike);
/* SIGKILL to its group (after proc_stop: no grace). */
void proc_kill(struct proc *p);
/* At shutdown: quit, then end of input, SIGKILL after the grace; its
 * attempts are dropped without a word. */
void proc_quit(struct proc *p);
void proc_free(struct proc *p);

#endif
