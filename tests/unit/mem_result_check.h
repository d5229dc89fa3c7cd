/* Equality of two memory instructions' statistics (prof_mem_result), field by
 * field, for the tests that count the same requests two ways. Include after
 * cmocka.h and prof.h. */
#ifndef MB_TEST_MEM_RESULT_CHECK_H
#define MB_TEST_MEM_RESULT_CHECK_H

static void same_hist(const prof_hist *x, const prof_hist *y)
{
    assert_int_equal(x->n, y->n);
    assert_int_equal(x->total, y->total);
    for (uint32_t i = 0; i < x->n; i++) {
        assert_int_equal(x->value[i], y->value[i]);
        assert_int_equal(x->count[i], y->count[i]);
    }
}

/* Every count, histogram and the footprint (not the affine model). */
static void same_result(const prof_mem_result *x, const prof_mem_result *y)
{
    assert_int_equal(x->requests, y->requests);
    assert_int_equal(x->thread_accesses, y->thread_accesses);
    assert_int_equal(x->space, y->space);
    same_hist(&x->sectors, &y->sectors);
    same_hist(&x->lines, &y->lines);
    same_hist(&x->cc10_transactions, &y->cc10_transactions);
    same_hist(&x->cc12_transactions, &y->cc12_transactions);
    same_hist(&x->bank_degree, &y->bank_degree);
    same_hist(&x->bank_cc1x, &y->bank_cc1x);
    same_hist(&x->addresses, &y->addresses);
    same_hist(&x->lane_stride, &y->lane_stride);
    same_hist(&x->reuse_log2, &y->reuse_log2);
    assert_int_equal(x->footprint_lines, y->footprint_lines);
    assert_int_equal(x->footprint_capped, y->footprint_capped);
}

#endif
