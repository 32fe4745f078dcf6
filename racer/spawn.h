/* The racer's children: one hardened way to run a program, one way to fork
 * a helper that runs racer code, and a registry that hands each child's
 * exit status to its owner (a worker process, the cache helper, a prover,
 * an option check). Nothing else in the racer forks or calls waitpid.
 *
 * The registry reaps every child with waitpid(-1) when SIGCHLD arrives in
 * the event loop (children_init) and calls the owner's function with the
 * status; a child whose owner went (children_forget) is reaped quietly. */
#ifndef RACER_SPAWN_H
#define RACER_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

struct event_base;

/* The owner's function: the child ended with wstatus (as waitpid says). */
typedef void (*child_exit_fn)(void *owner, int wstatus);

struct spawn_program {
	const char *path;
	char *const *argv;
	int stdin_fd, stdout_fd; /* become its fds 0 and 1; -1: /dev/null */
	int stderr_fd;           /* becomes its fd 2 when above 2 (else the racer's stays) */
	int nice;                /* added to its niceness (0: none) */
	bool own_group;          /* a process group of its own (its pid) */
	bool die_with_racer;     /* SIGKILLed when the racer ends, however */
};

/* Runs a program (vfork and exec, no shell): its signals back to their
 * defaults and unblocked, no fd of the racer's but 0-2. Returns its pid,
 * or -1 with errno (nothing started, fn never called). A program that
 * cannot be executed exits 127 after a line on standard error. */
pid_t spawn_program(const struct spawn_program *sp, child_exit_fn fn, void *owner);

/* Forks a helper that runs run(arg) in a copy of the racer and _exits
 * with its return value: every signal back to its default, in a process
 * group of its own (the terminal's signals are the racer's to pass on),
 * killed when the racer ends. keep_fd stays open in it; every other fd
 * but 0-2 is closed. Call it before threads start. Returns the pid, or -1
 * with errno. */
pid_t spawn_helper(int (*run)(void *), void *arg, int keep_fd, child_exit_fn fn, void *owner);

/* SIGCHLD, in base's loop, reaps the children. */
void children_init(struct event_base *base);
/* Reaps what has ended now, each status to its owner. */
void children_reap(void);
/* The owner of pid goes: its status is not wanted. */
void children_forget(pid_t pid);
/* Waits for one child outside the loop (blocking), its status to *wstatus
 * (may be NULL); the owner's function is not called. */
void children_wait(pid_t pid, int *wstatus);
/* Children registered and not reaped yet. */
int children_running(void);
void children_free(void);

#endif
