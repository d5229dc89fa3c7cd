/* Memory requests relayed from the collector to a counting thread
 * (prof_relay.c, used by prof_collect.c).
 *
 * A profile spends about a third of its time in the memory statistics
 * (prof_memory.c), and each instruction's statistics depend only on that
 * instruction's own requests in their order. So the collector can copy each
 * request into a queue and go on with the launch while a second thread counts
 * the queue in order: the profile is the same byte for byte, and on a machine
 * with two cores the launch no longer waits for the counting. */
#ifndef MB_PROF_RELAY_H
#define MB_PROF_RELAY_H

#include "prof.h"

#include <stdatomic.h>

/* Affine features a relayed request can carry (6 + the enclosing loops). */
#define RELAY_MAX_FEATURES 16

/* A memory instruction as the relay knows it. `features` says whether its
 * requests should still carry features: the counting thread clears it once
 * prof_mem_needs_features(pm) is 0, so the collector sees it late but only
 * ever falling from 1 to 0, and a model that no longer needs features
 * ignores those it is given. */
typedef struct relay_slot {
    prof_mem *pm;
    _Atomic uint8_t features;
    uint8_t nfeatures; /* per lane, at least 3, at most RELAY_MAX_FEATURES */
} relay_slot;

typedef struct prof_relay prof_relay;

/* Starts the counting thread for instructions 0 to nslots - 1 of the
 * collector's numbering, with the launch's thread-id table (per warp in a
 * CTA: 32 tid.x, 32 tid.y, 32 tid.z), which must stay unchanged while the
 * relay lives. NULL when it cannot (no memory, no thread): the collector
 * then counts in its own thread. */
prof_relay *prof_relay_new(uint32_t nslots, const int64_t *tid_table);

/* The slots, for reading their `features` flags. */
relay_slot *prof_relay_slots(prof_relay *r);

/* Gives `slot` its statistics before its first request; `pm` belongs to
 * the counting thread from then until prof_relay_drain returns. */
void prof_relay_attach(prof_relay *r, uint32_t slot, prof_mem *pm, uint32_t nfeatures);

/* Queues one request of `slot` (waits while the queue is full): its lanes
 * as prof_mem_request_lanes sets them, and features only in column form,
 * with columns 0-2 (the thread ids) either NULL or the relay's tid_table
 * rows of warp warp_tag - 1. Everything is copied. */
void prof_relay_push(prof_relay *r, uint32_t slot, const prof_mem_request *req);

/* Waits until every queued request has been counted; returns 0 when some
 * count ran out of memory. */
int prof_relay_drain(prof_relay *r);

/* Stops the thread, dropping what is still queued, and frees the relay. */
void prof_relay_free(prof_relay *r);

#endif
