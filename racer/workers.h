/* The portfolio: the worker programs found, and one entry per program and
 * options (--workers, or the defaults found). What an entry's hello says
 * is kept here too. */
#ifndef RACER_WORKERS_H
#define RACER_WORKERS_H

#include <stdbool.h>
#include <stddef.h>

/* The most worker entries in a portfolio (outcomes are kept per entry). */
#define MAX_SPECS 32
/* The most presolver processes (-j). */
#define MAX_JOBS 64

enum spec_status {
	SPEC_OK,          /* usable (or not started yet) */
	SPEC_UNAVAILABLE, /* not found, no device, bad hello: left out */
	SPEC_DISABLED,    /* kept dying, or lied: left out, warned once */
};

/* One entry of the portfolio: a worker program with its options. */
struct worker_spec {
	int index;
	char *label;          /* as given: "cp", "cp:seed=2", "./fake-liar" */
	char *name;           /* the program part: "cp" */
	int program;          /* the first entry of the same program (resolved
	                         executable and options): a program is not
	                         its spelling */
	bool gpu;             /* sudoku-gpu: one process, fed batches */
	char *path;           /* the program, or NULL when not found */
	char **argv;          /* path, --protocol, the entry's options, NULL */
	bool own_seed;        /* the entry sets --seed itself */
	bool explicit;        /* named in --workers (a failure to start is worth a warning) */
	enum spec_status status;
	char why[320];        /* UNAVAILABLE, DISABLED: why */
	/* from hello */
	bool hello_seen;
	bool complete;
	int min_box, max_box;
	char device[8];
	char detail[256];
	char version[32];
	int batch;
	/* set by schedule_init */
	bool presolver;       /* the presolver of some size: -j processes */
	bool confirmer;       /* --count: the first confirmer of some size: -j too */
	bool warned_wrong;    /* its first wrong answer was warned about */
	bool warned_error;    /* its first error answer was */
};

extern struct worker_spec *specs;
extern int nspecs;

/* The default portfolio, in order. */
extern const char *const default_worker_names[];
/* Default portfolio entry i (NAME or NAME:OPTIONS) written into buf. */
const char *default_entry(int i, char *buf, size_t size);

/* Builds the portfolio from --workers (or the defaults that are found),
 * and checks the options of the entries named (each program run once with
 * them, in base's loop). Exits 2 with a message when a named worker is
 * missing or refuses its options. */
struct event_base;
void workers_setup(struct event_base *base, char *const *lists, int nlists);
/* --list-workers: every known worker plus other sudoku-* programs found. */
void workers_setup_listing(char *const *lists, int nlists);
/* --list-workers' table, on standard output. */
void workers_print_listing(bool json);
/* Where the racer looks for sudoku-* programs, for messages. */
const char *workers_search_path(void);
/* The program of a worker name (sudoku-NAME beside the racer, ...), malloc'd;
 * NULL when there is none. */
char *workers_find_program(const char *name);
/* Do entries a and b run the same program (executable and options)? */
bool workers_same_program(int a, int b);
/* Does the entry take a grid of this box size (as far as its hello said)? */
bool workers_takes(const struct worker_spec *s, int box, bool count);
/* The width of a table's first column: the widest entry label, or the
 * heading, at most `most` (a wider label has a line of its own). */
int workers_label_width(const char *heading, int most);
void workers_free(void);

#endif
