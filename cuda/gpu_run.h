/* The host side of Algorithm 4 (seeds/gpu-backtracking-dlx.txt §3) after
 * the CPU's expansion: a job is the set of search trees of one launch; a
 * runner transfers it, runs the kernel, and brings the results back. Two
 * runners: the CUDA one (cuda/kernels.cu) and the CPU emulation
 * (cuda/emulate.c), which runs the same per-tree code. Plain C, so that the
 * worker (cuda/gpu.c) is compiled by the C compiler. */
#ifndef SUDOKU_GPU_RUN_H
#define SUDOKU_GPU_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpu_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Jobs that may run at once, each in its own lane: on the device, a stream
 * and buffers of its own (--lanes, at most this many). */
#define GPU_LANES_MAX 8

struct gpu_job {
	enum gpu_method method;
	int lane;                    /* 0 to the lanes opened - 1: no two running jobs share one */
	int box, side, cells;
	int ntrees, npuzzles;
	const uint8_t *trees;        /* ntrees × cells */
	const int32_t *tree_puzzle;  /* ntrees */
	struct gpu_ctl *ctl;         /* npuzzles: in, the CPU's counts; out, the totals */
	uint8_t *solutions;          /* npuzzles × cells: in, the CPU's; out, the first found */
	uint64_t count_limit;
	int threads;                 /* SPBF, PDLX: threads per block */
	int order;                   /* PDLX: enum branch_order */
	/* CPW's split: the trees as masks (a split's pieces) instead of boards,
	 * the passes a tree runs before it spills, and where the pieces go */
	const uint16_t *tree_masks;  /* ntrees × cells, or NULL */
	int split_passes;            /* 0: no split */
	uint16_t *spill;             /* spill_cap × cells */
	int32_t *spill_puzzle;       /* spill_cap */
	int spill_cap;
	bool resident;               /* a relaunch of pieces: ctl and solutions are on the
				      * device from the launch before, not sent again */
	/* out */
	int nspill;                  /* pieces spilled of puzzles still open (at most spill_cap) */
	bool stopped;                /* a stop was asked for during the run */
	int threads_used;            /* threads per block of the launch */
	float copy_in_ms, kernel_ms, copy_out_ms; /* the device's phases (0 emulated) */
};

/* Of the n pieces a split spilled, keeps those of puzzles still open, in
 * order (a puzzle done since needs no more search); returns how many. */
static inline int gpu_keep_open_pieces(struct gpu_job *job, int n)
{
	const size_t row = (size_t)job->cells * sizeof *job->spill;
	int kept = 0;
	for (int k = 0; k < n; k++) {
		if (job->ctl[job->spill_puzzle[k]].done)
			continue;
		if (kept != k)
			memmove(job->spill + (size_t)kept * (size_t)job->cells,
				job->spill + (size_t)k * (size_t)job->cells, row);
		job->spill_puzzle[kept++] = job->spill_puzzle[k];
	}
	return kept;
}

/* What a runner asks of its caller while the kernel runs. */
struct gpu_hooks {
	void *arg;
	bool (*stop_now)(void *arg);     /* true: stop every tree */
	bool (*progress_due)(void *arg); /* true: call progress */
	void (*progress)(void *arg, uint64_t nodes, uint64_t trees_done, uint64_t trees);
};

/* The limits that decide which grids a method can take on a device. */
int gpu_method_max_box(enum gpu_method m, const struct gpu_limits *lim);
/* SPBF: threads per block that fit the shared memory (at least 1). */
int gpu_spbf_threads(int wanted, int cells, const struct gpu_limits *lim);

/* The emulated device: an sm_90 GPU's limits (an H100's), on the CPU. */
void gpu_emulated_limits(struct gpu_limits *lim);

/* Runs a job on the CPU. Returns 0, or -1 with a message (out of memory,
 * or the kernel code broke the lockstep of its threads). */
int gpu_emulate(struct gpu_job *job, const struct gpu_hooks *hooks, char *err, size_t errsz);

/* CUDA: finds the device and starts its context (kept warm from then on).
 * Returns 0 with its limits and a name in detail, or -1 with why not. */
int gpu_cuda_open(struct gpu_limits *lim, int lanes, char *detail, size_t detailsz);
/* Page-locked host memory, for a job's arrays: the copies reach it at the
 * bus's speed, where pageable memory goes through the driver's staging
 * buffers. NULL when none is left; gpu_cuda_host_free(NULL) does nothing. */
void *gpu_cuda_host_alloc(size_t size);
void gpu_cuda_host_free(void *p);
/* Runs a job on the device opened. Returns 0, or -1 with a message. */
int gpu_cuda_run(struct gpu_job *job, const struct gpu_hooks *hooks, char *err, size_t errsz);

#ifdef __cplusplus
}
#endif

#endif
