/* A small hand-written profile shared by the synth and emit unit tests, and
 * the one edit they make to it. Include after cmocka.h. */
#ifndef MB_SYNTH_FIXTURE_H
#define MB_SYNTH_FIXTURE_H

#include <stdlib.h>
#include <string.h>

/* `text` with its first `from` replaced by `to` (malloc'd); fails the test
 * when `from` is not there. */
static inline char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, text, (size_t)(at - text));
    strcpy(s + (at - text), to);
    strcat(s, at + strlen(from));
    return s;
}

/* A two-block kernel: BB0 (64 threads) branches to a self-loop L1 run 4
 * times by each of 32 threads, or straight to the exit block. */
#define PROFILE_JSON(DIV, ECOUNT1, SECTORS)                                                        \
    "{\"format\": \"minibench-profile-1\", \"kernel\": \"k\", \"ptx\": \"k.ptx\",\n"               \
    " \"launch\": {\"grid\": [2,1,1], \"block\": [32,1,1], \"dynamic_shared\": 0, \"ctas\": 2,\n"  \
    "   \"warps\": 2, \"threads\": 64, \"warp_insts\": 20, \"thread_insts\": 400},\n"              \
    " \"resources\": {\"registers\": 8, \"shared_bytes_static\": 0, \"shared_bytes_dynamic\": 0,\n" \
    "   \"local_bytes_per_thread\": 0, \"const_bytes\": 0, \"param_bytes\": 8},\n"                 \
    " \"parameters\": [{\"name\": \"p0\", \"type\": \"u64\", \"bytes\": 8, \"pointer\":\n"         \
    "   {\"buffer\": \"a\", \"buffer_bytes\": 256, \"offset\": 0}}],\n"                            \
    " \"module_variables\": [],\n"                                                                 \
    " \"functions\": [{\"name\": \"k\", \"kind\": \"kernel\", \"calls\": 64,\n"                    \
    "   \"instruction_mix\": {\"classes\": {\"int\": 300, \"ctrl\": 100},\n"                       \
    "                       \"opcodes\": {\"add.s32\": 300, \"bra\": 100}},\n"                     \
    "   \"blocks\": [\n"                                                                           \
    "    {\"id\": 0, \"name\": \"BB0\", \"ecount\": 64, \"lcount\": 0, \"scount\": 0, \"threads\": 64,\n" \
    "     \"warp_execs\": 2, \"entries\": 64, \"exits\": 0, \"loop\": null,\n"                 \
    "     \"instruction_mix\": {\"classes\": {\"int\": 64, \"ctrl\": 36},\n"                      \
    "                         \"opcodes\": {\"add.s32\": 64, \"bra\": 36}},\n"                   \
    "     \"chain\": \"add.s32 bra\",\n"                                                          \
    "     \"dependence_distance\": {\"1\": 1}, \"dependences\": \"- 1\"},\n"                         \
    "    {\"id\": 1, \"name\": \"L1\", \"ecount\": " ECOUNT1 ", \"lcount\": 96, \"scount\": 0,\n"   \
    "     \"threads\": 32, \"warp_execs\": 4, \"entries\": 0, \"exits\": 0, \"loop\": 0,\n"        \
    "     \"instruction_mix\": {\"classes\": {\"int\": 236}, \"opcodes\": {\"add.s32\": 236}},\n"  \
    "     \"chain\": \"add.s32 ld.f32 bra\"},\n"                                                   \
    "    {\"id\": 2, \"name\": \"BB2\", \"ecount\": 64, \"lcount\": 0, \"scount\": 0, \"threads\": 64,\n" \
    "     \"warp_execs\": 2, \"entries\": 0, \"exits\": 64, \"loop\": null,\n"                \
    "     \"instruction_mix\": {\"classes\": {\"ctrl\": 64}, \"opcodes\": {\"bra\": 64}},\n"     \
    "     \"chain\": \"ret\"}],\n"                                                                \
    "   \"edges\": [{\"from\": 0, \"to\": 1, \"count\": 32, \"threads\": 32, \"back\": false},\n"  \
    "             {\"from\": 0, \"to\": 2, \"count\": 32, \"threads\": 32, \"back\": false},\n"    \
    "             {\"from\": 1, \"to\": 1, \"count\": 96, \"threads\": 32, \"back\": true},\n"     \
    "             {\"from\": 1, \"to\": 2, \"count\": 32, \"threads\": 32, \"back\": false}],\n"   \
    "   \"loops\": [{\"index\": 0, \"kind\": \"self\", \"header\": 1, \"depth\": 1, \"parent\": null,\n" \
    "     \"blocks\": [1], \"activations\": 32, \"mean_trip_count\": 4, \"trip_counts\": {\"4\": 32},\n" \
    "     \"warp_activations\": 1, \"warp_activations_with_differing_trips\": 0,\n"                \
    "     \"trip_count_depends_on\": [\"constant\"]}],\n"                                          \
    "   \"branches\": [{\"insn\": 1, \"line\": 10, \"block\": 0, \"warp_execs\": 2,\n"             \
    "     \"taken_threads\": 32, \"not_taken_threads\": 32, \"diverged_warp_execs\": 0,\n"         \
    "     \"divergence_fraction\": " DIV ", \"condition\": \"thread/cta id\"}],\n"                 \
    "   \"memory\": [{\"insn\": 3, \"line\": 12, \"op\": \"ld.f32\", \"space\": \"global\",\n"     \
    "     \"width\": 4, \"vector\": 1, \"requests\": 4, \"thread_accesses\": 128,\n"               \
    "     \"sectors_per_request\": " SECTORS ", \"base\": {\"kind\": \"parameter\", \"index\": 0,\n" \
    "     \"name\": \"p0\"}, \"affine\": {\"exact\": true, \"constant\": 0,\n"                     \
    "     \"terms\": {\"tid.x\": 4, \"iter.loop0\": 0}}, \"footprint_lines\": 1}]}]}\n"

/* A condition_model for BB0's branch: taken by the threads with tid.x >= 16
 * (half of each CTA, as the fixture's counts say). */
#define COND_MODEL(NEGATE, CMP, TYPE, A, B)                                                              \
    ", \"condition_model\": {\"exact\": true, \"negate\": " NEGATE ", \"expr\":\n"              \
    "     {\"op\": \"cmp\", \"insn\": 0, \"line\": 9, \"cmp\": \"" CMP "\", \"type\": \"" TYPE "\",\n"    \
    "      \"a\": " A ", \"b\": " B "}}"
#define AFFINE_TID_X "{\"exact\": true, \"constant\": 0, \"terms\": {\"tid.x\": 1}}"
#define AFFINE_16 "{\"exact\": true, \"constant\": 16, \"terms\": {}}"

static const char profile_dot[] =
    "strict digraph k {\n"
    "  BB0 [block=0, ecount=64, lcount=0, scount=0, threads=64, warp_execs=2, chain=\"add.s32 bra\"];\n"
    "  subgraph cluster_loop0 { L1 [block=1, ecount=128, lcount=96, scount=0, threads=32,\n"
    "     warp_execs=4, loop=0, chain=\"add.s32 ld.f32 bra\"]; }\n"
    "  BB2 [block=2, ecount=64, lcount=0, scount=0, threads=64, warp_execs=2, chain=ret];\n"
    "  EXIT [shape=doublecircle];\n"
    "  BB0 -> L1 [oecount=32, tcount=32];\n"
    "  BB0 -> BB2 [oecount=32, tcount=32];\n"
    "  L1 -> L1 [oecount=96, tcount=32, color=red];\n"
    "  L1 -> BB2 [oecount=32, tcount=32];\n"
    "  BB2 -> EXIT [style=dashed];\n"
    "}\n";

#endif
