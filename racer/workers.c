/* Finding the worker programs without configuration, and the portfolio.
 *
 * A worker NAME is the program sudoku-NAME, looked for beside the racer's
 * own executable (installed: all in $(bindir)), then in ../workers and
 * ../cuda from it (the build tree: racer/, workers/, cuda/), then on the
 * PATH; failing that, a program NAME on the PATH (a third-party worker).
 * A NAME with a '/' is a path. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "racer/jsonw.h"
#include "racer/spawn.h"
#include "racer/util.h"
#include "racer/workers.h"

const char *const default_worker_names[] = {"cp", "sat", "dlx", "bf", "acs", "eda", "hill", "tabu",
					    "gpu", NULL};
/* Options the default portfolio gives a worker, beyond its paper's
 * defaults, because they win races: the ant colony restarts after 1000
 * iterations without progress (100% of the 25x25 instances at 45% within
 * 20 s, against 91% without), RESEDA starts from the cells constraint
 * propagation fixes (the paper's own closing suggestion; without it a
 * 17-clue puzzle takes it minutes), and the GPU searches by CPW, not by the
 * paper's OPBF: on an H100 CPW's kernel solved a 16x16 puzzle of 1.0e9
 * brute-force placements in 1 ms, which OPBF, searching in brute force's
 * order, did not in 5 s (contrib/bench/gpu-h100.md). CPW takes up to
 * 16x16; larger grids go to the other workers. */
const char *const default_worker_options[] = {"", "", "", "", "restart=1000", "deduce", "", "", "method=cpw", NULL};

const char *default_entry(int i, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", default_worker_names[i], default_worker_options[i][0] ? ":" : "",
		 default_worker_options[i]);
	return buf;
}

struct worker_spec *specs;
int nspecs;

static char *dirs[3];
static int ndirs;
static char search_path[3 * PATH_MAX + 64];

static bool is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void find_dirs(void)
{
	if (ndirs)
		return;
	char self[PATH_MAX];
	if (!self_path(self))
		return;
	char *slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = '\0';
	const char *rel[] = {"", "/../workers", "/../cuda"};
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char d[PATH_MAX + 16];
		snprintf(d, sizeof d, "%s%s", self, rel[i]);
		char real[PATH_MAX];
		if (is_dir(d) && realpath(d, real))
			dirs[ndirs++] = xstrdup(real);
	}
	size_t pos = 0;
	for (int i = 0; i < ndirs; i++)
		pos += (size_t)snprintf(search_path + pos, sizeof search_path - pos, "%s, ", dirs[i]);
	snprintf(search_path + pos, sizeof search_path - pos, "the PATH");
}

const char *workers_search_path(void)
{
	find_dirs();
	return search_path;
}

static char *find_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		char cand[PATH_MAX];
		/* an empty or relative element (".") is never searched: a
		 * program of the current directory joins no portfolio */
		snprintf(cand, sizeof cand, "%.*s/%s", (int)len, path, prog);
		if (len && path[0] == '/' && is_executable(cand))
			return xstrdup(cand);
		path += len + (colon ? 1 : 0);
	}
	return NULL;
}

static bool is_default_name(const char *name)
{
	for (int i = 0; default_worker_names[i]; i++)
		if (strcmp(default_worker_names[i], name) == 0)
			return true;
	return false;
}

/* The program for a worker name, or NULL. */
static char *find_program(const char *name)
{
	if (strchr(name, '/'))
		return is_executable(name) ? xstrdup(name) : NULL;
	find_dirs();
	char prog[256];
	snprintf(prog, sizeof prog, "sudoku-%s", name);
	for (int i = 0; i < ndirs; i++) {
		char cand[PATH_MAX + 300];
		snprintf(cand, sizeof cand, "%s/%s", dirs[i], prog);
		if (is_executable(cand))
			return xstrdup(cand);
	}
	char *p = find_on_path(prog);
	/* a program of that very name: a third-party worker. Never for the
	 * portfolio's own names: `cp` must not find /bin/cp. */
	if (!p && !is_default_name(name))
		p = find_on_path(name);
	return p;
}

char *workers_find_program(const char *name)
{
	return find_program(name);
}

static struct worker_spec *add_spec(const char *label)
{
	if (nspecs == MAX_SPECS)
		die("more than %d workers in the portfolio", MAX_SPECS);
	specs = realloc(specs, (size_t)(nspecs + 1) * sizeof *specs);
	if (!specs)
		die("out of memory");
	struct worker_spec *s = &specs[nspecs];
	memset(s, 0, sizeof *s);
	s->index = nspecs++;
	/* two entries written alike get told apart: cp, cp#2 */
	int same = 1;
	for (int i = 0; i < s->index; i++)
		if (strcmp(specs[i].label, label) == 0 ||
		    (strncmp(specs[i].label, label, strlen(label)) == 0 && specs[i].label[strlen(label)] == '#'))
			same++;
	if (same > 1) {
		char buf[256];
		snprintf(buf, sizeof buf, "%s#%d", label, same);
		s->label = xstrdup(buf);
	} else {
		s->label = xstrdup(label);
	}
	s->batch = 1;
	return s;
}

/* Entries run the same program when their executables are one file (by
 * device and inode: however the path is spelt) and their options are the
 * same; one that was not found is its name. The first such entry's index. */
static int program_of(const struct worker_spec *s)
{
	struct stat a, b;
	bool found = s->path && stat(s->path, &a) == 0;
	for (int i = 0; i < s->index; i++) {
		const struct worker_spec *o = &specs[i];
		bool same_file = found && o->path && stat(o->path, &b) == 0 ? a.st_dev == b.st_dev && a.st_ino == b.st_ino
					: !found && !o->path && strcmp(o->name, s->name) == 0;
		if (!same_file)
			continue;
		char *const *x = s->argv + 1, *const *y = o->argv + 1;
		while (*x && *y && strcmp(*x, *y) == 0)
			x++, y++;
		if (!*x && !*y)
			return o->program;
	}
	return s->index;
}

bool workers_same_program(int a, int b)
{
	return specs[a].program == specs[b].program;
}

bool workers_takes(const struct worker_spec *s, int box, bool count)
{
	return box >= s->min_box && box <= s->max_box && (!count || s->complete);
}

int workers_label_width(const char *heading, int most)
{
	int w = (int)strlen(heading);
	for (int i = 0; i < nspecs; i++)
		if ((int)strlen(specs[i].label) > w)
			w = (int)strlen(specs[i].label);
	return w < most ? w : most;
}

/* An entry NAME[:KEY[=VALUE]]...: the program and its options. */
static void parse_entry(const char *entry, bool must_exist)
{
	char *copy = xstrdup(entry);
	char *save = NULL;
	char *name = strtok_r(copy, ":", &save);
	if (!name || !name[0]) {
		fprintf(stderr, "%s: --workers: an empty worker name in '%s'\n", PROGRAM, entry);
		exit(2);
	}
	struct worker_spec *s = add_spec(entry);
	s->name = xstrdup(name);
	s->gpu = strcmp(name, "gpu") == 0;
	s->explicit = must_exist;
	s->path = find_program(name);
	int argc = 0, cap = 4;
	s->argv = xcalloc((size_t)cap, sizeof *s->argv);
	s->argv[argc++] = xstrdup(s->path ? s->path : name);
	s->argv[argc++] = xstrdup("--protocol");
	for (char *o = strtok_r(NULL, ":", &save); o; o = strtok_r(NULL, ":", &save)) {
		if (!o[0] || o[0] == '=') {
			fprintf(stderr, "%s: --workers: a bad option in '%s'\n", PROGRAM, entry);
			exit(2);
		}
		if (argc + 2 >= cap) {
			cap *= 2;
			s->argv = realloc(s->argv, (size_t)cap * sizeof *s->argv);
			if (!s->argv)
				die("out of memory");
		}
		char buf[512];
		snprintf(buf, sizeof buf, "--%s", o);
		s->argv[argc++] = xstrdup(buf);
		if (strncmp(o, "seed=", 5) == 0 || strcmp(o, "seed") == 0)
			s->own_seed = true;
	}
	s->argv[argc] = NULL;
	s->program = program_of(s);
	if (!s->path) {
		s->status = SPEC_UNAVAILABLE;
		snprintf(s->why, sizeof s->why, "not found");
		if (must_exist) {
			fprintf(stderr, "%s: --workers: no worker program '%s' (looked for sudoku-%s in %s)\n",
				PROGRAM, name, name, workers_search_path());
			exit(2);
		}
	}
	free(copy);
}

static void parse_lists(char *const *lists, int nlists, bool must_exist)
{
	for (int i = 0; i < nlists; i++) {
		char *list = xstrdup(lists[i]);
		char *save = NULL;
		int n = 0;
		for (char *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
			parse_entry(e, must_exist);
			n++;
		}
		if (n == 0) {
			fprintf(stderr, "%s: --workers: an empty list\n", PROGRAM);
			exit(2);
		}
		free(list);
	}
}

/* The options of the entries given with --workers are checked before the
 * first puzzle: each such program runs once with them and no input (a
 * worker reads its options, says hello and ends at the end of its input).
 * One that exits with status 2 refused them, and said why on standard
 * error; one that ends without a hello (its --help, its --version) did not
 * start with them: a usage error of the racer's either way, said once (not
 * once per start). A worker that does not end at the end of its input
 * within CHECK_MS is not waited for: its options passed the reading. */
#define CHECK_MS 2000

struct check {
	pid_t pid;
	int out;                /* its standard output's read end */
	bool ended, refused, crashed;
};
static struct check checks[MAX_SPECS];
static int checks_running;

static void check_ended(void *owner, int wstatus)
{
	struct check *c = owner;
	c->ended = true;
	c->refused = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 2;
	c->crashed = !WIFEXITED(wstatus);
	checks_running--;
}

static void check_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
}

static void start_check(struct worker_spec *s, struct check *c)
{
	int out[2];
	*c = (struct check){.out = -1};
	if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0)
		return; /* unchecked: a failure shows at its start */
	struct spawn_program sp = {.path = s->path, .argv = s->argv, .stdin_fd = -1, .stdout_fd = out[1],
				   .own_group = true, .die_with_racer = true};
	c->pid = spawn_program(&sp, check_ended, c);
	close(out[1]);
	if (c->pid > 0) {
		c->out = out[0];
		checks_running++;
	} else {
		c->pid = 0;
		close(out[0]);
	}
}

/* Did it say hello first? (What it wrote is in the pipe, up to 64 kB.) */
static bool said_hello(const struct check *c)
{
	char first[8];
	return read(c->out, first, 6) == 6 && memcmp(first, "hello ", 6) == 0;
}

static void check_entry_options(struct event_base *base)
{
	for (int i = 0; i < nspecs; i++)
		if (specs[i].path && specs[i].argv[2])
			start_check(&specs[i], &checks[i]);
		else
			checks[i] = (struct check){.out = -1}; /* no options of its own */
	if (checks_running) {
		struct timeval tv = {CHECK_MS / 1000, CHECK_MS % 1000 * 1000};
		struct event *deadline = evtimer_new(base, check_timeout, NULL);
		if (!deadline || evtimer_add(deadline, &tv) < 0)
			die("cannot create a timer");
		while (checks_running && evtimer_pending(deadline, NULL))
			event_base_loop(base, EVLOOP_ONCE);
		event_free(deadline);
	}
	bool refused = false;
	for (int i = 0; i < nspecs; i++) {
		struct check *c = &checks[i];
		if (c->pid > 0 && !c->ended) {
			kill(-c->pid, SIGKILL);
			kill(c->pid, SIGKILL);
			children_wait(c->pid, NULL);
		} else if (c->refused) {
			fprintf(stderr, "%s: --workers: '%s': the worker refused its options\n", PROGRAM, specs[i].label);
			refused = true;
		} else if (c->pid > 0 && !c->crashed && !said_hello(c)) {
			fprintf(stderr, "%s: --workers: '%s': the worker did not start with its options (no hello)\n",
				PROGRAM, specs[i].label);
			refused = true;
		}
		if (c->out >= 0)
			close(c->out);
	}
	checks_running = 0;
	if (refused)
		exit(2);
}

void workers_setup(struct event_base *base, char *const *lists, int nlists)
{
	if (nlists) {
		parse_lists(lists, nlists, true);
		check_entry_options(base);
		return;
	}
	for (int i = 0; default_worker_names[i]; i++) {
		char *path = find_program(default_worker_names[i]);
		if (path) {
			char entry[128];
			free(path);
			parse_entry(default_entry(i, entry, sizeof entry), false);
		}
	}
	if (nspecs == 0) {
		fprintf(stderr, "%s: no worker programs found (looked for sudoku-cp, sudoku-dlx, ... in %s)\n",
			PROGRAM, workers_search_path());
		exit(2);
	}
}

static bool listed(const char *name)
{
	for (int i = 0; i < nspecs; i++)
		if (strcmp(specs[i].name, name) == 0)
			return true;
	return false;
}

void workers_setup_listing(char *const *lists, int nlists)
{
	if (nlists) {
		parse_lists(lists, nlists, false);
		return;
	}
	for (int i = 0; default_worker_names[i]; i++) {
		char entry[128];
		parse_entry(default_entry(i, entry, sizeof entry), false);
	}
	/* other sudoku-* programs beside the racer (sudoku-sat, ...) */
	find_dirs();
	for (int d = 0; d < ndirs; d++) {
		DIR *dir = opendir(dirs[d]);
		if (!dir)
			continue;
		struct dirent *de;
		while ((de = readdir(dir))) {
			const char *n = de->d_name;
			if (strncmp(n, "sudoku-", 7) != 0 || strcmp(n, "sudoku-race") == 0 || !n[7] ||
			    strchr(n, '.') || listed(n + 7))
				continue;
			char path[PATH_MAX + 300];
			snprintf(path, sizeof path, "%s/%s", dirs[d], n);
			if (is_executable(path))
				parse_entry(n + 7, false);
		}
		closedir(dir);
	}
}

/* The sizes an entry's hello said, "4x4-64x64". */
static void sizes_text(const struct worker_spec *s, char *buf, size_t size)
{
	snprintf(buf, size, "%dx%d-%dx%d", s->min_box * s->min_box, s->min_box * s->min_box, s->max_box * s->max_box,
		 s->max_box * s->max_box);
}

/* --list-workers' table, within 80 columns: a label too wide has a line
 * of its own; the status is wrapped at words under its column, and an
 * available worker's program is on the line below. Sizes are grids' sides,
 * as every other text says them (4x4-64x64). With --json, an object a
 * worker on a line. */
static void listing_json(void)
{
	struct jsonw w = {0};
	char sizes[48];
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		bool available = s->status == SPEC_OK && s->hello_seen;
		jsonw_begin(&w, '{');
		jsonw_key(&w, "worker");
		jsonw_str(&w, s->label);
		jsonw_key(&w, "kind");
		jsonw_str(&w, s->hello_seen ? (s->complete ? "complete" : "stochastic") : NULL);
		jsonw_key(&w, "sizes");
		if (s->hello_seen) {
			sizes_text(s, sizes, sizeof sizes);
			jsonw_str(&w, sizes);
		} else {
			jsonw_str(&w, NULL);
		}
		jsonw_key(&w, "device");
		jsonw_str(&w, s->hello_seen || s->device[0] ? s->device : NULL);
		jsonw_key(&w, "available");
		jsonw_bool(&w, available);
		jsonw_key(&w, "version");
		jsonw_str(&w, s->hello_seen ? s->version : NULL);
		jsonw_key(&w, "why");
		jsonw_str(&w, available ? NULL : s->why[0] ? s->why : "no hello");
		jsonw_key(&w, "program");
		jsonw_str(&w, s->path);
		jsonw_end(&w, '}');
		jsonw_flush(&w, stdout);
	}
	jsonw_free(&w);
}

void workers_print_listing(bool json)
{
	if (json) {
		listing_json();
		return;
	}
	int label = workers_label_width("WORKER", 20);
	int at = label + 1 + 10 + 1 + 9 + 1 + 6 + 1; /* the status column */
	printf("%-*s %-10s %-9s %-6s %s\n", label, "WORKER", "KIND", "SIZES", "DEVICE", "STATUS");
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		char sizes[48] = "-", status[400];
		if (s->hello_seen)
			sizes_text(s, sizes, sizeof sizes);
		bool available = s->status == SPEC_OK && s->hello_seen;
		if (available)
			snprintf(status, sizeof status, "available: version %s", s->version);
		else
			snprintf(status, sizeof status, "unavailable: %s", s->why[0] ? s->why : "no hello");
		if ((int)strlen(s->label) > label)
			printf("%s\n%-*s", s->label, label, "");
		else
			printf("%-*s", label, s->label);
		printf(" %-10s %-9s %-6s ", s->hello_seen ? (s->complete ? "complete" : "stochastic") : "-", sizes,
		       s->hello_seen || s->device[0] ? s->device : "-");
		fflush(stdout);
		racer_wrapped(stdout, status, at, at);
		if (available && s->path) {
			/* under the status when it fits, else from the second column */
			int indent = at + (int)strlen(s->path) <= 80 ? at : 2;
			printf("%*s", indent, "");
			racer_wrapped(stdout, s->path, indent, indent);
		}
	}
}

void workers_free(void)
{
	for (int i = 0; i < nspecs; i++) {
		struct worker_spec *s = &specs[i];
		for (char **a = s->argv; a && *a; a++)
			free(*a);
		free(s->argv);
		free(s->label);
		free(s->name);
		free(s->path);
	}
	free(specs);
	specs = NULL;
	nspecs = 0;
	for (int i = 0; i < ndirs; i++)
		free(dirs[i]);
	ndirs = 0;
}
