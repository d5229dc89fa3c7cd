/* kmeans_ref.c - host reference for the kmeans example. */
#include "kmeans_ref.h"

#include <float.h>
#include <math.h>

#include "../common/example_rng.h"

void kmeans_init(float *points, float *centroids, size_t npoints, size_t nclusters,
                 size_t nfeatures, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    /* Hidden centres first, stored where the initial guesses go, then the
     * points around them, then the real initial guesses over the top. */
    for (size_t i = 0; i < nclusters * nfeatures; ++i)
        centroids[i] = ex_rng_range(&state, 0.0f, 10.0f);
    for (size_t p = 0; p < npoints; ++p) {
        size_t home = ex_rng_below(&state, (uint32_t)nclusters);
        for (size_t f = 0; f < nfeatures; ++f)
            points[f * npoints + p] =
                centroids[home * nfeatures + f] + ex_rng_range(&state, -1.0f, 1.0f);
    }
    for (size_t i = 0; i < nclusters * nfeatures; ++i)
        centroids[i] = ex_rng_range(&state, 0.0f, 10.0f);
}

void kmeans_ref(const float *points, const float *centroids, int32_t *membership,
                float *distance, size_t npoints, size_t nclusters, size_t nfeatures)
{
    for (size_t p = 0; p < npoints; ++p) {
        int32_t best = 0;
        float best_d = FLT_MAX;
        for (size_t c = 0; c < nclusters; ++c) {
            float d = 0.0f;
            for (size_t f = 0; f < nfeatures; ++f) {
                float diff = points[f * npoints + p] - centroids[c * nfeatures + f];
                d = fmaf(diff, diff, d);
            }
            if (d < best_d) {
                best_d = d;
                best = (int32_t)c;
            }
        }
        membership[p] = best;
        distance[p] = best_d;
    }
}
