#!/usr/bin/env bash
# Description: lb.train names="dlio" lays out DLIO's data_folder: the files
# in dir/train/ named as DLIO's generator names them (img_F_of_N, F padded
# to the digits of N; over num_subfolders=S > 1 in train/(F % S padded to
# the digits of S)/) and an empty dir/valid/, which DLIO lists too; the
# layout record sits in dir, outside both.  A run reads every file once an
# epoch and reuses the files; another file count is refused (exit 2, the
# files unchanged: the names carry the count); names="dlio" with dir= a
# glob is refused; lb.train_remove removes the tree it made.  mlperf.lua
# names=dlio lays out the same tree, and refuses find_max=1 without files=.
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local r = lb.train{dir = args.dir, names = "dlio", files = tonumber(args.files), format = "npz",
                   sample_size = "4k", batch_size = 2, epochs = 2, compute_time = 0,
                   num_subfolders = tonumber(args.sub), shuffle = "sample", seed = 3}
print(("laid %d samples %d"):format(r.layout.files, r.samples))
if args.remove then lb.train_remove{dir = args.dir, names = "dlio", files = tonumber(args.files),
                                    format = "npz", num_subfolders = tonumber(args.sub)} end
LUA

out=$("$LUABENCH" -q run.lua dir="$tmp/flat" files=12) || fail "flat layout: $out"
[ "$out" = "laid 12 samples 24" ] || fail "12 files laid out, 2 epochs of 12 samples: $out"
got=$(cd flat && find . | sort | tr '\n' ' ')
want=". ./.luabench-dlio-img.npz.layout ./train"
for i in 00 01 02 03 04 05 06 07 08 09 10 11; do want="$want ./train/img_${i}_of_12.npz"; done
want="$want ./valid "
[ "$got" = "$want" ] || fail "DLIO's names: got '$got', want '$want'"
sum=$(cat flat/train/* | sha256sum)
# a zip DLIO's np.load reads: the local header's signature, x.npy first
for f in flat/train/*; do
  [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 504b0304 ] || fail "$f: not a zip"
done
out=$("$LUABENCH" -q run.lua dir="$tmp/flat" files=12) || fail "second run: $out"
[ "$out" = "laid 0 samples 24" ] || fail "the files are reused: $out"
expect_exit 2 "holds DLIO's names for a set of 12 files (img_N_of_12), this run asks for 13" \
  "$LUABENCH" -q run.lua dir="$tmp/flat" files=13
[ "$(cat flat/train/* | sha256sum)" = "$sum" ] || fail "the refused run changed the files"
[ ! -e flat/train/img_12_of_13.npz ] && [ ! -e flat/train/img_00_of_13.npz ] ||
  fail "the refused run wrote a file"

# 3 subfolders of DLIO's names, 0/ 1/ 2/, file f in f % 3; removed after
out=$("$LUABENCH" -q run.lua dir="$tmp/sub" files=10 sub=3) || fail "subfolders: $out"
[ "$out" = "laid 10 samples 20" ] || fail "10 files in subfolders: $out"
got=$(cd sub/train && find . -name '*.npz' | sort | tr '\n' ' ')
[ "$got" = "./0/img_00_of_10.npz ./0/img_03_of_10.npz ./0/img_06_of_10.npz ./0/img_09_of_10.npz \
./1/img_01_of_10.npz ./1/img_04_of_10.npz ./1/img_07_of_10.npz ./2/img_02_of_10.npz \
./2/img_05_of_10.npz ./2/img_08_of_10.npz " ] || fail "subfolder names: $got"
"$LUABENCH" -q run.lua dir="$tmp/sub" files=10 sub=3 remove=1 >/dev/null || fail "remove"
[ "$(cd sub && find . | tr '\n' ' ')" = ". " ] || fail "lb.train_remove left: $(cd sub && find .)"

printf 'lb.train{dir = args.dir .. "/train/*.npz", names = "dlio"}\n' > glob.lua
expect_exit 2 "field 'names' must be \"luabench\" with dir= a glob or a list" \
  "$LUABENCH" -q glob.lua dir="$tmp/flat"
out=$(cd "$LB_SRC" && "$LUABENCH" -q scripts/mlperf.lua workload=unet3d scaled=1 files=8 \
      sample_size=4k compute_time=0 epochs=1 runs=1 warmup=0 names=dlio dir="$tmp/ml" 2>&1) ||
  fail "mlperf.lua names=dlio: $out"
[ "$(cd ml && find train valid | sort | tr '\n' ' ')" = "train train/img_0_of_8.npz \
train/img_1_of_8.npz train/img_2_of_8.npz train/img_3_of_8.npz train/img_4_of_8.npz \
train/img_5_of_8.npz train/img_6_of_8.npz train/img_7_of_8.npz valid " ] ||
  fail "mlperf.lua names=dlio tree: $(cd ml && find .)"
expect_exit 2 "names=dlio needs files= with find_max=1" \
  bash -c "cd '$LB_SRC' && '$LUABENCH' -q scripts/mlperf.lua workload=unet3d find_max=1 scaled=1 names=dlio dir='$tmp/ml2'"
[ ! -e "$tmp/ml2" ] || fail "the refused find_max wrote $tmp/ml2"
pass
