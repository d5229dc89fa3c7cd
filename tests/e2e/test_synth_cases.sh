#!/usr/bin/env bash
# The divergence cases of the MiniBench paper's section 4.2.2 on crafted
# kernels (tests/synth/divergence.cu, and tests/synth/top_tested.ptx for the
# loop that leaves from its first block, which compilers do not write): each
# case is recognised, and the clone reproduces the branch statistics of the
# case's branch.
source "$(dirname "$0")/lib.sh"
SYN="$MB_SOURCE_DIR/tests/synth"
expect_exit 0 "profile the crafted kernels" -- "$MINIBENCH" profile "$SYN/divergence.ptx" \
  --launch "$SYN/launch.json" -o "$TMP/p"
expect_exit 0 "profile the top-tested loop" -- "$MINIBENCH" profile "$SYN/top_tested.ptx" \
  --launch "$SYN/top_tested.json" -o "$TMP/p"

# kernel.launch | case the synth output must name | block of that branch
cases=(
  "outside_first_n.0|outside-loop first N|0"
  "outside_lanes.1|outside-loop lane pattern|0"
  "self_loop.2|self-loop|2"
  "jump_first_n.3|self-loop|2"
  "target_groups.4|target point \(ii\)|3"
  "target_random.5|target point \(iv\)|3"
  "target_groups.4|jump point \(i\)|5"
  "jump_groups.8|jump point \(ii\)|5"
  "target_same.9|target point \(i\)|3"
  "target_iterations.0|target point \(iii\)|1"
)
for c in "${cases[@]}"; do
  IFS='|' read -r k name block <<<"$c"
  kernel=${k%.*}
  expect_exit 0 "synth $k" -- "$MINIBENCH" synth "$TMP/p/$k" --reduction 1 -o "$TMP/c/$k"
  expect_grep "$TMP/out" "branch in block $block \(line [0-9]+\): $name" "$k: $name recognised"
  profile_clone "$k" "$TMP/c/$k"
  expect_exit 0 "compare $k" -- "$MINIBENCH" compare "$TMP/p/$k" "$TMP/c/$k/prof/$kernel.0"
  # the case's branch: same taken fraction (counts reproduced) and divergence within 2 points
  line=$(grep -E "^  $block +[0-9]+ " "$TMP/out" | head -1)
  if [ -z "$line" ]; then
    fail "$k: no branch in block $block in the comparison"
    continue
  fi
  read -r _ _ da db diff ta tb <<<"$line"
  awk -v d="$diff" 'BEGIN { exit !(d <= 0.02 && d >= -0.02) }' && pass ||
    fail "$k: divergence of block $block: $da vs $db"
  awk -v a="$ta" -v b="$tb" 'BEGIN { x = a - b; exit !(x <= 0.02 && x >= -0.02) }' && pass ||
    fail "$k: taken fraction of block $block: $ta vs $tb"
done

# the whole check passes where the kernel is exactly the case
for k in outside_first_n.0 outside_lanes.1 self_loop.2 target_same.9; do
  expect_exit 0 "check $k" -- "$MINIBENCH" compare "$TMP/p/$k" "$TMP/c/$k/prof/${k%.*}.0" --check
done
# target_same's test passes on every loaded value: the clone's constant
# predicate takes the place of the original's f32 comparison (no integer
# setp beside it, 9.9% more thread instructions before) and reads the
# loaded value, so that the branch waits for the load as the original's does
ld=$(grep -m1 -oE 'ld\.global\.f32 %f[0-9]+' "$TMP/c/target_same.9/clone.ptx" | awk '{print $2}')
grep -qE "^\s*setp\.lt\.f32 %p[0-9]+, ${ld:-none}, 0fFF800000;" "$TMP/c/target_same.9/clone.ptx" && pass ||
  fail "target_same: the constant predicate does not read the loaded value ${ld:-(no load)}"
# a tiled loop's shorter last tile: the inner trip count follows the outer
# iteration in every thread (no thread or CTA runs more tiles' worth than
# another); where the outer loop runs once, every thread runs the mean
expect_exit 0 "profile tiled_inner" -- "$MINIBENCH" profile "$SYN/divergence.ptx" \
  --launch "$SYN/launch.json" --launch-index 6 -o "$TMP/t"
for R in 1 4; do
  expect_exit 0 "synth tiled_inner R=$R" -- "$MINIBENCH" synth "$TMP/t/tiled_inner.6" --reduction $R \
    -o "$TMP/t/c$R"
  profile_clone "tiled_inner R=$R" "$TMP/t/c$R"
done
# a wavefront in a one-CTA launch: at R = 1 the clone is the original's loop
# (its step guard compares the loop's own counter, no second register);
# reduced, the sampled steps are offset so that as many lanes work on them as
# on the original's steps on average (the first step has one lane working,
# the original's steps 16)
expect_exit 0 "profile wavefront" -- "$MINIBENCH" profile "$SYN/divergence.ptx" \
  --launch "$SYN/launch.json" --launch-index 7 -o "$TMP/w"
expect_exit 0 "synth wavefront R=1" -- "$MINIBENCH" synth "$TMP/w/wavefront.7" --reduction 1 -o "$TMP/w/c1"
profile_clone "wavefront R=1" "$TMP/w/c1"
expect_exit 0 "check wavefront R=1" -- "$MINIBENCH" compare "$TMP/w/wavefront.7" \
  "$TMP/w/c1/prof/wavefront.0" --check
for R in 8 max; do
  expect_exit 0 "synth wavefront R=$R" -- "$MINIBENCH" synth "$TMP/w/wavefront.7" --reduction $R \
    -o "$TMP/w/c$R"
  profile_clone "wavefront R=$R" "$TMP/w/c$R"
  # (other statistics of this clone are outside tolerance: --check fails)
  "$MINIBENCH" compare "$TMP/w/wavefront.7" "$TMP/w/c$R/prof/wavefront.0" --reduction $R --check \
    >"$TMP/w/cmp$R" 2>&1
  grep -q "^CFG  *same" "$TMP/w/cmp$R" && pass || fail "wavefront R=$R: no comparison"
  if grep -qE "^  block [0-9]+ .*ECount" "$TMP/w/cmp$R"; then
    fail "wavefront R=$R: $(grep -E "^  block [0-9]+ .*ECount" "$TMP/w/cmp$R" | head -1)"
  else
    pass
  fi
  read -r _ _ da db diff ta tb <<<"$(grep -E "^  1 +[0-9]+ +[0-9.]+ " "$TMP/w/cmp$R" | head -1)"
  awk -v d="$diff" -v a="$ta" -v b="$tb" \
    'BEGIN { x = a - b; exit !(d != "" && d <= 0.02 && d >= -0.02 && x <= 0.05 && x >= -0.05) }' &&
    pass || fail "wavefront R=$R: the step guard diverges $db against $da, taken $tb against $ta"
done

if command -v python3 >/dev/null; then
  inner='import json, sys
loop = json.load(open(sys.argv[1]))["functions"][0]["loops"][1]
assert loop["parent"] == 0, loop
assert loop["trip_counts"] == json.loads(sys.argv[2]), loop["trip_counts"]
assert "thread id" not in loop["trip_count_depends_on"], loop["trip_count_depends_on"]
assert loop["warp_activations_with_differing_trips"] == 0, loop'
  python3 -c "$inner" "$TMP/t/tiled_inner.6.profile.json" '{"72": 256, "128": 256}' &&
    pass || fail "tiled_inner: the original's inner loop is not the expected one"
  python3 -c "$inner" "$TMP/t/c1/prof/tiled_inner.0.profile.json" '{"72": 256, "128": 256}' &&
    pass || fail "tiled_inner R=1: the inner trip count does not follow the outer iteration"
  python3 -c "$inner" "$TMP/t/c4/prof/tiled_inner.0.profile.json" '{"25": 256}' &&
    pass || fail "tiled_inner R=4: the threads do not all run the mean trip count"
else
  echo "python3 not found: the tiled_inner trip-count checks are skipped"
fi
finish
