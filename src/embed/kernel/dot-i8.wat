;; The exact-scan kernels of FlatVectorIndex (issue 8): a query against N rows in linear memory.
;;
;; Regenerate src/embed/kernel/dot-i8-wasm.ts after editing this file (wabt is not a dependency
;; of the project; install it anywhere, then point the script at it):
;;
;;   npm install --prefix /tmp/wabt wabt@1.0.39
;;   node scripts/build-kernel.mjs --wabt /tmp/wabt/node_modules/wabt
;;
;; `node scripts/build-kernel.mjs --wabt DIR --check` fails when the generated file is stale, and a
;; unit test compares the sha256 of this file with the one recorded in the generated file.
;;
;; Memory is imported so that JS owns its size: the index grows it chunk by chunk and reads the
;; scores through typed-array views. Every pointer is a byte offset; every row starts `dp` bytes
;; (int8) or `dp` floats (f32) after the previous one.
;;
;; Layout contract (checked by the caller, not here):
;; - int8: `dp` is a multiple of 16 and >= 16; rows and query are zero-padded up to `dp`. Values
;;   lie in [-127, 127], so a product fits i16 and a pmaddwd pair sum fits i32 without overflow;
;;   a dot product over dp <= 2^17 components fits i32.
;; - f32: `dp` is a multiple of 4 and >= 4; rows and query are zero-padded up to `dp`.
;; - `out` holds n 32-bit slots and does not overlap the rows or the query (at_least: nor the scores).
;;
;; Four rows per outer iteration share each query load (the query stays in L1; the rows stream
;; from memory once). Sign-extending 8-byte loads (v128.load8x8_s, one pmovsxbw on x64) feed
;; i32x4.dot_i16x8_s (one pmaddwd): six SIMD instructions per 16 components per row, no shuffles.
(module
  (import "env" "memory" (memory 1))

  ;; Sum of the four i32 lanes.
  (func $hsum_i32 (param $v v128) (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))
      (i32.add (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))

  ;; Sum of the four f32 lanes, pairwise: (l0 + l1) + (l2 + l3).
  (func $hsum_f32 (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; The int8 dot product of the query and row `p`, 16 components per step, as an i32x4 of partial sums.
  (func $dot_i8_row (param $q i32) (param $p i32) (param $dp i32) (result v128)
    (local $j i32) (local $acc v128)
    (loop $cols
      (local.set $acc
        (i32x4.add (local.get $acc)
          (i32x4.add
            (i32x4.dot_i16x8_s
              (v128.load8x8_s (i32.add (local.get $q) (local.get $j)))
              (v128.load8x8_s (i32.add (local.get $p) (local.get $j))))
            (i32x4.dot_i16x8_s
              (v128.load8x8_s offset=8 (i32.add (local.get $q) (local.get $j)))
              (v128.load8x8_s offset=8 (i32.add (local.get $p) (local.get $j)))))))
      (local.set $j (i32.add (local.get $j) (i32.const 16)))
      (br_if $cols (i32.lt_u (local.get $j) (local.get $dp))))
    (local.get $acc))

  ;; dot_i8(q, rows, n, dp, out): out[i] = Σ_j q[j] · rows[i·dp + j] as i32, for i < n.
  (func $dot_i8 (export "dot_i8")
    (param $q i32) (param $rows i32) (param $n i32) (param $dp i32) (param $out i32)
    (local $i i32) (local $j i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32)
    (local $ql v128) (local $qh v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $p0 (local.get $rows))
    (block $done4
      (loop $rows4
        (br_if $done4 (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (local.set $p1 (i32.add (local.get $p0) (local.get $dp)))
        (local.set $p2 (i32.add (local.get $p1) (local.get $dp)))
        (local.set $p3 (i32.add (local.get $p2) (local.get $dp)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $cols
          (local.set $ql (v128.load8x8_s (i32.add (local.get $q) (local.get $j))))
          (local.set $qh (v128.load8x8_s offset=8 (i32.add (local.get $q) (local.get $j))))
          (local.set $a0 (i32x4.add (local.get $a0) (i32x4.add
            (i32x4.dot_i16x8_s (local.get $ql) (v128.load8x8_s (i32.add (local.get $p0) (local.get $j))))
            (i32x4.dot_i16x8_s (local.get $qh) (v128.load8x8_s offset=8 (i32.add (local.get $p0) (local.get $j)))))))
          (local.set $a1 (i32x4.add (local.get $a1) (i32x4.add
            (i32x4.dot_i16x8_s (local.get $ql) (v128.load8x8_s (i32.add (local.get $p1) (local.get $j))))
            (i32x4.dot_i16x8_s (local.get $qh) (v128.load8x8_s offset=8 (i32.add (local.get $p1) (local.get $j)))))))
          (local.set $a2 (i32x4.add (local.get $a2) (i32x4.add
            (i32x4.dot_i16x8_s (local.get $ql) (v128.load8x8_s (i32.add (local.get $p2) (local.get $j))))
            (i32x4.dot_i16x8_s (local.get $qh) (v128.load8x8_s offset=8 (i32.add (local.get $p2) (local.get $j)))))))
          (local.set $a3 (i32x4.add (local.get $a3) (i32x4.add
            (i32x4.dot_i16x8_s (local.get $ql) (v128.load8x8_s (i32.add (local.get $p3) (local.get $j))))
            (i32x4.dot_i16x8_s (local.get $qh) (v128.load8x8_s offset=8 (i32.add (local.get $p3) (local.get $j)))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $cols (i32.lt_u (local.get $j) (local.get $dp))))
        (i32.store offset=0 (local.get $out) (call $hsum_i32 (local.get $a0)))
        (i32.store offset=4 (local.get $out) (call $hsum_i32 (local.get $a1)))
        (i32.store offset=8 (local.get $out) (call $hsum_i32 (local.get $a2)))
        (i32.store offset=12 (local.get $out) (call $hsum_i32 (local.get $a3)))
        (local.set $p0 (i32.add (local.get $p3) (local.get $dp)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $rows4)))
    (block $done1
      (loop $rows1
        (br_if $done1 (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store (local.get $out)
          (call $hsum_i32 (call $dot_i8_row (local.get $q) (local.get $p0) (local.get $dp))))
        (local.set $p0 (i32.add (local.get $p0) (local.get $dp)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows1))))

  ;; score_i8(q, rows, scales, n, dp, qscale, out): out[i] = f32(dot_i8 row i) · scales[i] · qscale,
  ;; the approximate cosine. `out` is written as i32 first, then converted in place (it stays in
  ;; cache: the caller scans one chunk of rows at a time).
  (func (export "score_i8")
    (param $q i32) (param $rows i32) (param $scales i32) (param $n i32) (param $dp i32)
    (param $qscale f32) (param $out i32)
    (local $i i32) (local $qs v128) (local $o i32) (local $s i32)
    (call $dot_i8 (local.get $q) (local.get $rows) (local.get $n) (local.get $dp) (local.get $out))
    (local.set $qs (f32x4.splat (local.get $qscale)))
    (local.set $o (local.get $out))
    (local.set $s (local.get $scales))
    (block $done4
      (loop $by4
        (br_if $done4 (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (v128.store (local.get $o)
          (f32x4.mul
            (f32x4.convert_i32x4_s (v128.load (local.get $o)))
            (f32x4.mul (v128.load (local.get $s)) (local.get $qs))))
        (local.set $o (i32.add (local.get $o) (i32.const 16)))
        (local.set $s (i32.add (local.get $s) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $by4)))
    (block $done1
      (loop $by1
        (br_if $done1 (i32.ge_u (local.get $i) (local.get $n)))
        (f32.store (local.get $o)
          (f32.mul
            (f32.convert_i32_s (i32.load (local.get $o)))
            (f32.mul (f32.load (local.get $s)) (local.get $qscale))))
        (local.set $o (i32.add (local.get $o) (i32.const 4)))
        (local.set $s (i32.add (local.get $s) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $by1))))

  ;; at_least(scores, n, t, out) -> count: writes to `out` (i32 slots, ascending) every index i < n
  ;; whose f32 score is not below t (`!(scores[i] < t)`, so NaN too, as the JS selection does) and
  ;; returns how many. Four scores a step; a step where none qualifies costs one compare. Lets the
  ;; caller's top-k selection look only at the rows that can enter it once its heap is full.
  (func (export "at_least")
    (param $scores i32) (param $n i32) (param $t f32) (param $out i32) (result i32)
    (local $i i32) (local $k i32) (local $end i32) (local $c i32) (local $ts v128)
    (local.set $ts (f32x4.splat (local.get $t)))
    (block $done4
      (loop $by4
        (br_if $done4 (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (if (v128.any_true
              (v128.not (f32x4.lt (v128.load (i32.add (local.get $scores) (i32.shl (local.get $i) (i32.const 2)))) (local.get $ts))))
          (then
            (local.set $k (local.get $i))
            (local.set $end (i32.add (local.get $i) (i32.const 4)))
            (loop $lanes
              (if (i32.eqz (f32.lt (f32.load (i32.add (local.get $scores) (i32.shl (local.get $k) (i32.const 2)))) (local.get $t)))
                (then
                  (i32.store (i32.add (local.get $out) (i32.shl (local.get $c) (i32.const 2))) (local.get $k))
                  (local.set $c (i32.add (local.get $c) (i32.const 1)))))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br_if $lanes (i32.lt_u (local.get $k) (local.get $end))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $by4)))
    (block $done1
      (loop $by1
        (br_if $done1 (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.eqz (f32.lt (f32.load (i32.add (local.get $scores) (i32.shl (local.get $i) (i32.const 2)))) (local.get $t)))
          (then
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $c) (i32.const 2))) (local.get $i))
            (local.set $c (i32.add (local.get $c) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $by1)))
    (local.get $c))

  ;; The f32 dot product of the query and row `p`, 4 components per step, as an f32x4 of partial sums.
  (func $dot_f32_row (param $q i32) (param $p i32) (param $bytes i32) (result v128)
    (local $j i32) (local $acc v128)
    (loop $cols
      (local.set $acc
        (f32x4.add (local.get $acc)
          (f32x4.mul
            (v128.load (i32.add (local.get $q) (local.get $j)))
            (v128.load (i32.add (local.get $p) (local.get $j))))))
      (local.set $j (i32.add (local.get $j) (i32.const 16)))
      (br_if $cols (i32.lt_u (local.get $j) (local.get $bytes))))
    (local.get $acc))

  ;; dot_f32(q, rows, n, dp, out): out[i] = Σ_j q[j] · rows[i·dp + j] as f32 (four lanes summed
  ;; pairwise at the end, so not bit-equal to a sequential sum).
  (func (export "dot_f32")
    (param $q i32) (param $rows i32) (param $n i32) (param $dp i32) (param $out i32)
    (local $i i32) (local $j i32) (local $bytes i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32)
    (local $qv v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $bytes (i32.shl (local.get $dp) (i32.const 2)))
    (local.set $p0 (local.get $rows))
    (block $done4
      (loop $rows4
        (br_if $done4 (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (local.set $p1 (i32.add (local.get $p0) (local.get $bytes)))
        (local.set $p2 (i32.add (local.get $p1) (local.get $bytes)))
        (local.set $p3 (i32.add (local.get $p2) (local.get $bytes)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $cols
          (local.set $qv (v128.load (i32.add (local.get $q) (local.get $j))))
          (local.set $a0 (f32x4.add (local.get $a0)
            (f32x4.mul (local.get $qv) (v128.load (i32.add (local.get $p0) (local.get $j))))))
          (local.set $a1 (f32x4.add (local.get $a1)
            (f32x4.mul (local.get $qv) (v128.load (i32.add (local.get $p1) (local.get $j))))))
          (local.set $a2 (f32x4.add (local.get $a2)
            (f32x4.mul (local.get $qv) (v128.load (i32.add (local.get $p2) (local.get $j))))))
          (local.set $a3 (f32x4.add (local.get $a3)
            (f32x4.mul (local.get $qv) (v128.load (i32.add (local.get $p3) (local.get $j))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $cols (i32.lt_u (local.get $j) (local.get $bytes))))
        (f32.store offset=0 (local.get $out) (call $hsum_f32 (local.get $a0)))
        (f32.store offset=4 (local.get $out) (call $hsum_f32 (local.get $a1)))
        (f32.store offset=8 (local.get $out) (call $hsum_f32 (local.get $a2)))
        (f32.store offset=12 (local.get $out) (call $hsum_f32 (local.get $a3)))
        (local.set $p0 (i32.add (local.get $p3) (local.get $bytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $rows4)))
    (block $done1
      (loop $rows1
        (br_if $done1 (i32.ge_u (local.get $i) (local.get $n)))
        (f32.store (local.get $out)
          (call $hsum_f32 (call $dot_f32_row (local.get $q) (local.get $p0) (local.get $bytes))))
        (local.set $p0 (i32.add (local.get $p0) (local.get $bytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows1))))
)
