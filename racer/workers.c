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

#include "racer.h"

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
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return;
	self[n] = '\0';
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
		if (len == 0)
			snprintf(cand, sizeof cand, "./%s", prog);
		else
			snprintf(cand, sizeof cand, "%.*s/%s", (int)len, path, prog);
		if (is_executable(cand))
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

static void parse_lists(bool must_exist)
{
	for (int i = 0; i < opt.nworker_lists; i++) {
		char *list = xstrdup(opt.worker_lists[i]);
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
 * error: a usage error of the racer's, said once (not once per start). */
static void check_entry_options(void)
{
	pid_t pid[MAX_SPECS] = {0};
	int running = 0;
	for (int i = 0; i < nspecs; i++) {
		struct worker_spec *s = &specs[i];
		if (!s->path || !s->argv[2])
			continue; /* no options of its own */
		pid[i] = fork();
		if (pid[i] == 0) {
			int null = open("/dev/null", O_RDWR);
			if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
				_exit(127);
			setpgid(0, 0);
			execv(s->path, s->argv);
			_exit(127);
		}
		if (pid[i] < 0)
			pid[i] = 0; /* unchecked: a failure shows at its start */
		else
			running++;
	}
	bool refused = false;
	/* a worker that does not end at the end of its input is not waited
	 * for long: its options passed the reading */
	for (int waited_ms = 0; running && waited_ms < 2000; waited_ms++) {
		for (int i = 0; i < nspecs; i++) {
			int st;
			if (pid[i] <= 0 || waitpid(pid[i], &st, WNOHANG) != pid[i])
				continue;
			pid[i] = 0;
			running--;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
				fprintf(stderr, "%s: --workers: '%s': the worker refused its options\n", PROGRAM,
					specs[i].label);
				refused = true;
			}
		}
		if (running)
			usleep(1000);
	}
	for (int i = 0; i < nspecs; i++)
		if (pid[i] > 0) {
			kill(-pid[i], SIGKILL);
			kill(pid[i], SIGKILL);
			waitpid(pid[i], NULL, 0);
		}
	if (refused)
		exit(2);
}

void workers_setup(void)
{
	if (opt.nworker_lists) {
		parse_lists(true);
		check_entry_options();
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

void workers_setup_listing(void)
{
	if (opt.nworker_lists) {
		parse_lists(false);
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

/* --list-workers' table, within 80 columns: a label too wide has a line
 * of its own; the status is wrapped at words under its column, and an
 * available worker's program is on the line below. */
void workers_print_listing(void)
{
	int label = label_width("WORKER", 20);
	int at = label + 1 + 10 + 1 + 5 + 1 + 6 + 1; /* the status column */
	printf("%-*s %-10s %-5s %-6s %s\n", label, "WORKER", "KIND", "SIZES", "DEVICE", "STATUS");
	for (int i = 0; i < nspecs; i++) {
		const struct worker_spec *s = &specs[i];
		char sizes[24] = "-", status[400];
		if (s->hello_seen)
			snprintf(sizes, sizeof sizes, "%d-%d", s->min_box, s->max_box);
		bool available = s->status == SPEC_OK && s->hello_seen;
		if (available)
			snprintf(status, sizeof status, "available: version %s", s->version);
		else
			snprintf(status, sizeof status, "unavailable: %s", s->why[0] ? s->why : "no hello");
		if ((int)strlen(s->label) > label)
			printf("%s\n%-*s", s->label, label, "");
		else
			printf("%-*s", label, s->label);
		printf(" %-10s %-5s %-6s ", s->hello_seen ? (s->complete ? "complete" : "stochastic") : "-", sizes,
		       s->hello_seen || s->device[0] ? s->device : "-");
		fflush(stdout);
		print_wrapped(stdout, status, (struct wrap){.at = at, .indent = at, .clauses = true});
		if (available && s->path) {
			/* under the status when it fits, else from the second column */
			int indent = at + (int)strlen(s->path) <= 80 ? at : 2;
			printf("%*s", indent, "");
			print_wrapped(stdout, s->path, (struct wrap){.at = indent, .indent = indent, .clauses = true});
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
	free(opt.worker_lists);
	opt.worker_lists = NULL;
}
