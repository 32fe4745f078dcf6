/* A filter's FILE arguments and its standard output, the way every
 * program of the project treats them: "-" or no FILE is standard input, a
 * FILE that cannot be opened is reported and skipped (the others are still
 * read), and a write error on standard output is an error at the end. */
#ifndef SUDOKU_FILES_H
#define SUDOKU_FILES_H

/* Reads argv[first..argc-1] (standard input when there is none) through
 * read_one(fd, name), name NULL for standard input; read_one returns -1
 * on a read error. Returns 2 when a FILE could not be opened or read, 0
 * otherwise. */
int files_read_each(int argc, char **argv, int first, int (*read_one)(int fd, const char *name));

/* Flushes standard output: 0, or 2 after saying "write error". */
int files_finish_stdout(void);

#endif
