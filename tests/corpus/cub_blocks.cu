/*
 * cub_blocks.cu - CUB block- and warp-wide collectives from the CCCL
 * headers that ship with nvcc.
 *
 * CUB is heavily templated: the PTX carries long mangled names, many
 * internal .func helpers (often inlined away), temp storage as one large
 * .shared .align 16 .b8 array per kernel, unrolled radix-sort passes with
 * bit-field extraction (bfe), shared-memory exchanges with padding, and
 * warp-synchronous scans built on shfl.sync.up with predicate outputs.
 */
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/functional>
#include <cuda_runtime.h>

#define BLOCK 128
#define ITEMS 4

/* Block reduction (sum and max) and exclusive/inclusive block scans. */
extern "C" __global__ void __launch_bounds__(BLOCK) block_reduce_scan(const int *in, int *sums,
                                                                      int *prefix, int n)
{
    using Reduce = cub::BlockReduce<int, BLOCK>;
    using ReduceRaking = cub::BlockReduce<int, BLOCK, cub::BLOCK_REDUCE_RAKING>;
    using Scan = cub::BlockScan<int, BLOCK>;
    using ScanWarps = cub::BlockScan<int, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
    __shared__ union {
        typename Reduce::TempStorage reduce;
        typename ReduceRaking::TempStorage raking;
        typename Scan::TempStorage scan;
        typename ScanWarps::TempStorage warps;
    } temp;

    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const int v = i < n ? in[i] : 0;
    const int total = Reduce(temp.reduce).Sum(v);
    __syncthreads();
    const int biggest = ReduceRaking(temp.raking).Reduce(v, cuda::maximum<int>{});
    __syncthreads();
    int exclusive, inclusive;
    Scan(temp.scan).ExclusiveSum(v, exclusive);
    __syncthreads();
    ScanWarps(temp.warps).InclusiveScan(v, inclusive, cuda::maximum<int>{});
    if (threadIdx.x == 0) {
        sums[2 * blockIdx.x] = total;
        sums[2 * blockIdx.x + 1] = biggest;
    }
    if (i < n)
        prefix[i] = exclusive ^ inclusive;
}

/* Blocked-arrangement radix sort of ITEMS keys per thread, with transposed
 * loads and stores. */
extern "C" __global__ void block_sort(const unsigned *keys_in, unsigned *keys_out, int n)
{
    using Load = cub::BlockLoad<unsigned, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<unsigned, BLOCK, ITEMS>;
    using Store = cub::BlockStore<unsigned, BLOCK, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Sort::TempStorage sort;
        typename Store::TempStorage store;
    } temp;

    const int base = blockIdx.x * BLOCK * ITEMS;
    const int valid = min(BLOCK * ITEMS, n - base);
    unsigned keys[ITEMS];
    Load(temp.load).Load(keys_in + base, keys, valid, 0xffffffffu); /* pad with max keys */
    __syncthreads();
    Sort(temp.sort).Sort(keys);
    __syncthreads();
    Store(temp.store).Store(keys_out + base, keys, valid);
}

/* Key-value sort on float keys (bit-twiddled to sortable integers) and a
 * block histogram with shared atomics. */
extern "C" __global__ void block_sort_pairs_hist(const float *keys_in, const int *vals_in,
                                                 float *keys_out, int *vals_out,
                                                 unsigned *hist_out)
{
    using Sort = cub::BlockRadixSort<float, BLOCK, 2, int>;
    using Hist = cub::BlockHistogram<unsigned char, BLOCK, 2, 64, cub::BLOCK_HISTO_ATOMIC>;
    __shared__ typename Sort::TempStorage sort_temp;
    __shared__ typename Hist::TempStorage hist_temp;
    __shared__ unsigned bins[64];

    const int base = blockIdx.x * BLOCK * 2 + threadIdx.x * 2;
    float keys[2] = {keys_in[base], keys_in[base + 1]};
    int vals[2] = {vals_in[base], vals_in[base + 1]};
    unsigned char samples[2] = {(unsigned char)((int)keys[0] & 63),
                                (unsigned char)((int)keys[1] & 63)};
    Hist(hist_temp).Histogram(samples, bins);
    Sort(sort_temp).SortDescending(keys, vals);
    keys_out[base] = keys[0];
    keys_out[base + 1] = keys[1];
    vals_out[base] = vals[0];
    vals_out[base + 1] = vals[1];
    __syncthreads();
    if (threadIdx.x < 64)
        atomicAdd(&hist_out[threadIdx.x], bins[threadIdx.x]);
}

/* Warp-level reductions and scans, including a segmented reduction and a
 * logical warp of 16 threads. */
extern "C" __global__ void warp_collectives(const double *in, double *out, const int *flags, int n)
{
    using WarpSum = cub::WarpReduce<double>;
    using HalfWarpSum = cub::WarpReduce<int, 16>;
    using WarpPrefix = cub::WarpScan<double>;
    __shared__ typename WarpSum::TempStorage sum_temp[BLOCK / 32];
    __shared__ typename HalfWarpSum::TempStorage half_temp[BLOCK / 16];
    __shared__ typename WarpPrefix::TempStorage scan_temp[BLOCK / 32];

    const int i = blockIdx.x * BLOCK + threadIdx.x;
    const int warp = threadIdx.x / 32;
    const double v = i < n ? in[i] : 0.0;
    const int flag = i < n ? flags[i] : 1;
    const double total = WarpSum(sum_temp[warp]).Sum(v);
    const double segmented = WarpSum(sum_temp[warp]).HeadSegmentedSum(v, flag);
    const int half_total = HalfWarpSum(half_temp[threadIdx.x / 16]).Sum(flag);
    double running;
    WarpPrefix(scan_temp[warp]).InclusiveSum(v, running);
    if (i < n)
        out[i] = total + segmented + running + half_total;
}
