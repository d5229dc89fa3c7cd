/*
 * kmeans.cu - the assignment step of k-means clustering.
 *
 * One thread per point runs a doubly nested loop: over K centroids and, for
 * each, over the features, accumulating the squared distance with fmaf, then
 * a data-dependent compare-and-update of the best centroid. Point loads are
 * coalesced (feature-major layout); centroid loads are warp-uniform (every
 * lane reads the same address, a broadcast). Both loop trip counts are
 * kernel parameters, identical for all threads.
 *
 * usage: kmeans [points] [clusters] [features] [block] [seed]
 */
#include <float.h>
#include <math.h>

#include "../common/example_host.cuh"
#include "kmeans_ref.h"

extern "C" __global__ void kmeans_assign(const float *points, const float *centroids,
                                         int *membership, float *distance, int npoints,
                                         int nclusters, int nfeatures)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints)
        return;

    int best = 0;
    float best_d = FLT_MAX;
    for (int c = 0; c < nclusters; ++c) {
        float d = 0.0f;
        for (int f = 0; f < nfeatures; ++f) {
            const float diff = points[f * npoints + p] - centroids[c * nfeatures + f];
            d = fmaf(diff, diff, d);
        }
        if (d < best_d) { /* strict: ties keep the lower index */
            best_d = d;
            best = c;
        }
    }
    membership[p] = best;
    distance[p] = best_d;
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[points=10000] [clusters=5] [features=8] [block=128] [seed=1]");
    int npoints = (int)example_arg(argc, argv, 1, "points", 10000, 1, 1 << 24);
    int nclusters = (int)example_arg(argc, argv, 2, "clusters", 5, 1, 1024);
    int nfeatures = (int)example_arg(argc, argv, 3, "features", 8, 1, 1024);
    unsigned block = (unsigned)example_arg(argc, argv, 4, "block", 128, 32, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 5, "seed", 1, 0, 0xffffffffu);

    size_t pbytes = (size_t)npoints * nfeatures * sizeof(float);
    size_t cbytes = (size_t)nclusters * nfeatures * sizeof(float);
    float *points = (float *)example_host_alloc(pbytes);
    float *centroids = (float *)example_host_alloc(cbytes);
    int *membership = (int *)example_host_alloc((size_t)npoints * sizeof(int));
    float *distance = (float *)example_host_alloc((size_t)npoints * sizeof(float));
    int *expect_m = (int *)example_host_alloc((size_t)npoints * sizeof(int));
    float *expect_d = (float *)example_host_alloc((size_t)npoints * sizeof(float));
    kmeans_init(points, centroids, npoints, nclusters, nfeatures, seed);

    float *d_points, *d_centroids, *d_distance;
    int *d_membership;
    CUDA_CHECK(cudaMalloc((void **)&d_points, pbytes));
    CUDA_CHECK(cudaMalloc((void **)&d_centroids, cbytes));
    CUDA_CHECK(cudaMalloc((void **)&d_membership, (size_t)npoints * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d_distance, (size_t)npoints * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_points, points, pbytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_centroids, centroids, cbytes, cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(npoints, block);
    kmeans_assign<<<grid, block>>>(d_points, d_centroids, d_membership, d_distance, npoints,
                                   nclusters, nfeatures);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(membership, d_membership, (size_t)npoints * sizeof(int),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(distance, d_distance, (size_t)npoints * sizeof(float),
                          cudaMemcpyDeviceToHost));

    /* Memberships exact; distances expected bit-identical, checked with a
     * 1e-5 relative tolerance. */
    kmeans_ref(points, centroids, expect_m, expect_d, npoints, nclusters, nfeatures);
    const float tol = 1e-5f;
    size_t bad_membership = 0, bad_distance = 0;
    for (int p = 0; p < npoints; ++p) {
        if (membership[p] != expect_m[p])
            ++bad_membership;
        if (!(fabsf(distance[p] - expect_d[p]) <= tol * fmaxf(1.0f, fabsf(expect_d[p]))))
            ++bad_distance;
    }

    printf("kmeans: points=%d clusters=%d features=%d grid=%u block=%u bad_memberships=%zu "
           "bad_distances=%zu (memberships exact, distances rel tol %.0e)\n",
           npoints, nclusters, nfeatures, grid, block, bad_membership, bad_distance, tol);
    CUDA_CHECK(cudaFree(d_points));
    CUDA_CHECK(cudaFree(d_centroids));
    CUDA_CHECK(cudaFree(d_membership));
    CUDA_CHECK(cudaFree(d_distance));
    free(points);
    free(centroids);
    free(membership);
    free(distance);
    free(expect_m);
    free(expect_d);
    return example_verdict(bad_membership == 0 && bad_distance == 0);
}
