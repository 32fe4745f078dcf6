/* What the GPU kernels and their CPU emulation share: the description of a
 * launch (Algorithm 4 of seeds/gpu-backtracking-dlx.txt: a set of search
 * trees, one control record per puzzle, the results), the atomics and
 * flag polls the per-tree search code uses, and the limits of a device.
 *
 * Every function marked GPU_HD is compiled twice from this one text: by
 * nvcc for the device (cuda/kernels.cu) and by the C compiler for the host
 * (cuda/emulate.c), so the emulated search is the kernels' own code. The
 * headers are therefore written in the common part of C11 and CUDA C++. */
#ifndef SUDOKU_GPU_DEVICE_H
#define SUDOKU_GPU_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GPU_HD __host__ __device__
#else
#define GPU_HD
#endif
#define GPU_FN static inline GPU_HD

/* SPBF, OPBF, PDLX: the paper's (§3); CPT: constraint propagation per
 * thread (cuda/cp_tree.h); CPW: the same by a warp (cuda/cpw_team.h) */
enum gpu_method { GPU_SPBF, GPU_OPBF, GPU_PDLX, GPU_CPT, GPU_CPW };

/* The result of running a tree's search for a while. */
enum tree_state { TREE_RUNNING, TREE_SOLVED, TREE_EXHAUSTED };

/* The branching order. ORDER_ROWS: the first empty cell in reading order
 * (§2.1's brute force; for Dancing Links it is Algorithm 3's t <- R[o], the
 * first column left, which is the first empty cell's column). ORDER_MIN:
 * the column with the fewest rows, Knuth's heuristic from [6] (PDLX only). */
enum branch_order { ORDER_ROWS, ORDER_MIN };

/* One per puzzle of a launch, in device memory. */
struct gpu_ctl {
	uint64_t count; /* solutions found so far (atomic; the CPU's expansion included) */
	uint64_t nodes; /* search nodes (placements), added as trees go */
	int32_t done;   /* §3.1's global flag: set atomically when the puzzle needs no more search */
	int32_t pad;
};

/* A launch as the kernels see it: pointers into device memory (into host
 * memory when emulated). All puzzles of one launch have the same size. */
struct gpu_launch {
	int box, side, cells;
	int ntrees;
	const uint8_t *trees;        /* ntrees boards of cells bytes, 0 = blank */
	const int32_t *tree_puzzle;  /* the puzzle each tree belongs to */
	struct gpu_ctl *ctl;         /* per puzzle */
	uint8_t *solutions;          /* per puzzle: the first solution found */
	uint64_t count_limit;        /* solutions wanted per puzzle (1, or K when counting) */
	const volatile int32_t *stop; /* set by the host to stop every tree (cancel, time limit);
				       * in device memory, written by a copy while the kernel runs */
	uint64_t *trees_done;        /* trees finished, for progress reports */
	int poll_steps;              /* search steps between two polls of the flags */
	int order;                   /* enum branch_order (PDLX) */
	void *work;                  /* PDLX: a Dancing Links per worker thread; CPW: a stack
				      * per worker warp */
	long work_bytes;             /* the size of one */
	int workers;                 /* threads (warps) that own one */
	int32_t *next_tree;          /* CPW: the next tree a warp takes (atomic) */
	/* CPW's split (--split): trees given as candidate masks instead of
	 * boards, and where a tree past its passes leaves its open work */
	const uint16_t *tree_masks;  /* ntrees × cells, or NULL: the boards */
	int split_passes;            /* 0: no split */
	uint16_t *spill;             /* spill_cap pieces × cells of masks */
	int32_t *spill_puzzle;       /* the puzzle of each piece */
	int32_t *spill_count;        /* pieces written (atomic; may pass spill_cap) */
	int spill_cap;
};

/* Steps between two polls of the flags, and polls between two reports of
 * the node count (an atomic add on one address per puzzle). */
#define GPU_POLL_STEPS 1024
#define GPU_FLUSH_POLLS 16

GPU_FN uint64_t gpu_atomic_add_u64(uint64_t *p, uint64_t v)
{
#if defined(__CUDA_ARCH__)
	return (uint64_t)atomicAdd((unsigned long long *)p, (unsigned long long)v);
#else
	return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}

GPU_FN void gpu_atomic_set_i32(int32_t *p, int32_t v)
{
#if defined(__CUDA_ARCH__)
	atomicExch((int *)p, (int)v);
#else
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

/* True when the trees of this puzzle must end: its answer is in (or its
 * count reached), or the host asked every tree to stop. Volatile reads, so
 * that a running kernel sees what another block or the host wrote. */
GPU_FN int gpu_should_stop(const struct gpu_launch *L, int puzzle)
{
	const volatile int32_t *done = &L->ctl[puzzle].done;
	return *done || *L->stop;
}

/* A tree found a solution. Counts it; the first one of its puzzle (the
 * count was 0) gets to write it (*first). Returns 1 when the puzzle has
 * what it needs, after setting its flag so that its other trees stop. */
GPU_FN int gpu_claim_solution(const struct gpu_launch *L, int puzzle, int *first)
{
	uint64_t before = gpu_atomic_add_u64(&L->ctl[puzzle].count, 1);
	*first = before == 0;
	if (before + 1 >= L->count_limit) {
		gpu_atomic_set_i32(&L->ctl[puzzle].done, 1);
		return 1;
	}
	return 0;
}

GPU_FN void gpu_add_nodes(const struct gpu_launch *L, int puzzle, uint64_t *pending)
{
	if (*pending) {
		gpu_atomic_add_u64(&L->ctl[puzzle].nodes, *pending);
		*pending = 0;
	}
}

GPU_FN void gpu_tree_finished(const struct gpu_launch *L)
{
	gpu_atomic_add_u64(L->trees_done, 1);
}

/* The end of a tree's slice: its nodes go to its puzzle's count now and
 * then (every GPU_FLUSH_POLLS slices, and at its end). Returns 1 while the
 * tree goes on, 0 once it is finished (counted in trees_done). */
GPU_FN int gpu_slice_end(const struct gpu_launch *L, int puzzle, uint64_t *nodes, int *polls, int state)
{
	if (state == TREE_EXHAUSTED || ++*polls % GPU_FLUSH_POLLS == 0)
		gpu_add_nodes(L, puzzle, nodes);
	if (state == TREE_EXHAUSTED) {
		gpu_tree_finished(L);
		return 0;
	}
	return 1;
}

/* Bit d-1 stands for digit d (up to 64 digits); a blank is no bit. */
GPU_FN uint64_t digit_bit(int d)
{
	return d ? (uint64_t)1 << (d - 1) : 0;
}

/* The digits used by the peers of a cell (its row, column and box), as a
 * mask of digit_bit()s. The board is row-major, 0 = blank. This is the
 * validity test of §2.1 for all digits at once: d is valid at the cell
 * when its bit is clear. */
GPU_FN uint64_t board_peer_digits(const uint8_t *board, int box, int side, int cell)
{
	int row = cell / side, col = cell % side;
	int r0 = row - row % box, c0 = col - col % box;
	uint64_t used = 0;
	for (int i = 0; i < side; i++) {
		used |= digit_bit(board[row * side + i]);
		used |= digit_bit(board[i * side + col]);
		used |= digit_bit(board[(r0 + i / box) * side + c0 + i % box]);
	}
	return used;
}

/* The smallest digit >= from whose bit is clear in used, or 0. */
GPU_FN int first_free_digit(uint64_t used, int from, int side)
{
	for (int d = from; d <= side; d++)
		if (!(used & digit_bit(d)))
			return d;
	return 0;
}

/* The limits of a device that decide which grids a method can take. */
struct gpu_limits {
	int max_threads_per_block;
	long shared_per_block;   /* bytes of shared memory a block may opt in to */
	long long global_mem;    /* bytes */
	int multiprocessors;
	int cc_major, cc_minor;
	char name[96];
};

#endif
