/*
 * coop_groups.cu - cooperative groups: thread_block, static and dynamic
 * tiled partitions, coalesced groups, labeled partitions, cg::reduce and
 * cg::inclusive_scan, and memcpy_async into shared memory.
 *
 * Cooperative groups are header-only templates over the warp intrinsics, so
 * the PTX shows the underlying shfl.sync/vote.sync/match.sync with computed
 * member masks, bar.sync with named barriers and thread counts, and a lot
 * of inlined mask arithmetic.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

/* Block sum: per-warp cg::reduce, then warp 0 reduces the warp totals. */
extern "C" __global__ void block_sum_cg(const int *in, int *out, int n)
{
    __shared__ int warp_totals[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const int i = block.group_index().x * block.size() + block.thread_rank();
    const int v = i < n ? in[i] : 0;

    const int warp_total = cg::reduce(warp, v, cg::plus<int>());
    if (warp.thread_rank() == 0)
        warp_totals[warp.meta_group_rank()] = warp_total;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        const int w = warp.thread_rank() < warp.meta_group_size() ? warp_totals[warp.thread_rank()] : 0;
        const int total = cg::reduce(warp, w, cg::plus<int>());
        if (warp.thread_rank() == 0)
            out[block.group_index().x] = total;
    }
}

/* Smaller tiles: 16- and 4-wide static tiles, a dynamic partition, scans,
 * shuffles and votes within the tile. */
extern "C" __global__ void tiles_and_scans(const int *in, int *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = i < n ? in[i] : 0;

    cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
    const int prefix = cg::inclusive_scan(half, v);
    const int biggest = cg::reduce(half, v, cg::greater<int>());
    cg::thread_block_tile<4> quad = cg::tiled_partition<4>(half);
    const int rotated = quad.shfl(v, (quad.thread_rank() + 1) % 4);
    const int down = half.shfl_down(v, 1) + half.shfl_xor(v, 2) + half.shfl_up(v, 3);
    const bool any_neg = half.any(v < 0), all_small = quad.all(v < 100);
    const unsigned votes = half.ballot(v > 0);

    cg::thread_group dynamic_tile = cg::tiled_partition(block, 8);
    dynamic_tile.sync();
    const int exclusive = cg::exclusive_scan(half, v, cg::bit_xor<int>());

    if (i < n)
        out[i] = prefix + biggest + rotated + down + (any_neg ? 1 : 0) + (all_small ? 2 : 0) +
                 (int)votes + (int)dynamic_tile.thread_rank() + exclusive;
}

/* Coalesced and labeled groups: formed from whichever lanes are active
 * inside a data-dependent branch. */
extern "C" __global__ void coalesced_groups(const int *in, int *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int v = in[i];
    if (v & 1) { /* odd values only */
        cg::coalesced_group active = cg::coalesced_threads();
        const int rank = active.thread_rank();
        const int leader_value = active.shfl(v, 0);
        const int odd_total = cg::reduce(active, v, cg::plus<int>());
        out[i] = rank * 1000 + leader_value + odd_total + (int)active.size();
    } else {
        cg::coalesced_group active = cg::coalesced_threads();
#if __CUDA_ARCH__ >= 700
        cg::coalesced_group same_bucket = cg::labeled_partition(active, (v >> 1) & 3);
        out[i] = (int)same_bucket.size() + (int)same_bucket.thread_rank();
#else
        out[i] = (int)active.size();
#endif
    }
}

/* cg::memcpy_async: asynchronous staging (cp.async on sm_80+, ordinary
 * loads and stores before). */
extern "C" __global__ void staged_copy(const float *in, float *out, int n)
{
    extern __shared__ float stage[];
    cg::thread_block block = cg::this_thread_block();
    const int base = blockIdx.x * blockDim.x;
    const int count = min((int)blockDim.x, n - base);
    if (count <= 0)
        return;
    cg::memcpy_async(block, stage, in + base, sizeof(float) * count);
    cg::wait(block);
    if ((int)threadIdx.x < count)
        out[base + threadIdx.x] = stage[count - 1 - threadIdx.x] * 2.0f;
}
