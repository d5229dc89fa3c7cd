/*
 * kmeans_ref.h - host reference for the kmeans example: the assignment step
 * of k-means, each point labelled with its nearest centroid (squared
 * Euclidean distance, ties to the lower centroid index).
 *
 * Layouts: points are feature-major, points[f * npoints + p], so that
 * consecutive threads read consecutive addresses; centroids are row-major,
 * centroids[c * nfeatures + f].
 *
 * Accuracy: the distance is accumulated as d = fmaf(diff, diff, d) over
 * features in ascending order on both sides, so memberships and distances
 * are expected to be bit-identical; the example compares memberships exactly
 * and distances with relative tolerance 1e-5.
 */
#ifndef KMEANS_REF_H
#define KMEANS_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fills points (nfeatures * npoints, feature-major) with clustered data:
 * each point is one of nclusters hidden centres in [0, 10)^nfeatures plus
 * noise in [-1, 1); centroids (nclusters * nfeatures) are initial guesses
 * in [0, 10)^nfeatures.
 */
void kmeans_init(float *points, float *centroids, size_t npoints, size_t nclusters,
                 size_t nfeatures, uint32_t seed);

/* membership[p] = index of the nearest centroid, distance[p] = its squared
 * distance. nclusters must be at least 1. */
void kmeans_ref(const float *points, const float *centroids, int32_t *membership,
                float *distance, size_t npoints, size_t nclusters, size_t nfeatures);

#ifdef __cplusplus
}
#endif

#endif /* KMEANS_REF_H */
