// The walk both channel-vectorized pooling kernels share (freestanding):
// each output pixel's window clipped to the input once, then its cells
// visited row by row with no bounds check; and the word loads the kernels
// read four channels with.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/pooling/pool_window.h"
#include "kernels/pooling/pooling.h"

namespace tinyaot {

// Cores that trap on an unaligned LDR (Armv6-M, Armv8-M Baseline) read
// words only when every cell's channel 0 is on a word boundary.
#if defined(__arm__) && !defined(__ARM_FEATURE_UNALIGNED)
constexpr bool kPoolAlignedWordsOnly = true;
#else
constexpr bool kPoolAlignedWordsOnly = false;
#endif

// Four channels of a cell as one little-endian word: channel c + j in byte j.
inline uint32_t load_pool_word(const int8_t* p) {
  uint32_t word;
  if constexpr (kPoolAlignedWordsOnly) {
    memcpy(&word, __builtin_assume_aligned(p, 4), 4);
  } else {
    memcpy(&word, p, 4);
  }
  return word;
}

// Whether the kernel may read the input in words.
inline bool pool_words_allowed(const int8_t* input, int32_t channels) {
  if constexpr (kPoolAlignedWordsOnly) {
    return (reinterpret_cast<uintptr_t>(input) | static_cast<uintptr_t>(channels)) % 4 == 0;
  } else {
    return true;
  }
}

// A count of words as a type, for a generic lambda's template argument.
template <int N>
struct BlockWords {
  static constexpr int value = N;
};

// Calls block(c, BlockWords<n>{}) for blocks of 4 * n channels from c,
// covering [0, channels): n = kBlockWords while they fit, then 1. A last
// part of one to three channels is the block of the last four channels (it
// repeats up to three channels, with the same results: the output never
// overlaps the input). Without words (`words` false), or below four
// channels in all, single(c) for each channel.
template <int kBlockWords, typename Block, typename Single>
inline void for_each_channel_block(int32_t channels, bool words, Block&& block, Single&& single) {
  int32_t c = 0;
  if (!words) {
    for (; c < channels; ++c) single(c);
    return;
  }
  for (; c + 4 * kBlockWords <= channels; c += 4 * kBlockWords) block(c, BlockWords<kBlockWords>{});
  if constexpr (kBlockWords > 1) {
    for (; c + 4 <= channels; c += 4) block(c, BlockWords<1>{});
  }
  if (c == channels) return;
  if (channels >= 4) {
    block(channels - 4, BlockWords<1>{});
    return;
  }
  for (; c < channels; ++c) single(c);
}

// The cells of one window inside the input. A window as wide as the input
// is one run of rows * cols cells (no skip between its rows).
struct PoolWindow {
  const int8_t* first;  // channel 0 of the first cell
  int32_t rows, cols;   // the walk: rows runs of cols cells
  int32_t row_skip;     // bytes from past a run's last cell to the next run
  int32_t count;        // cells, as TFLite's average divides by
};

// Calls f(window, out) for every output pixel in output order, `out` its
// channel 0.
template <typename F>
inline void for_each_pool_window(const Pool2dParams& p, const int8_t* input, int8_t* output,
                                 F&& f) {
  const int32_t channels = p.channels;
  const int32_t row_bytes = p.input_w * channels;
  int8_t* out = output;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * row_bytes;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      int32_t y_begin, y_end;
      clip_window(oy * p.stride_h - p.pad_top, p.filter_h, p.input_h, &y_begin, &y_end);
      for (int32_t ox = 0; ox < p.output_w; ++ox, out += channels) {
        int32_t x_begin, x_end;
        clip_window(ox * p.stride_w - p.pad_left, p.filter_w, p.input_w, &x_begin, &x_end);
        PoolWindow w;
        w.first = image + y_begin * row_bytes + x_begin * channels;
        w.rows = y_end - y_begin;
        w.cols = x_end - x_begin;
        w.count = w.rows * w.cols;
        w.row_skip = row_bytes - w.cols * channels;
        if (w.row_skip == 0) {
          w.cols = w.count;
          w.rows = 1;
        }
        f(w, out);
      }
    }
  }
}

// The cells of a window, each at channel `channel`, in memory order:
//   CellWalk walk(w, channels, channel);
//   do { ... walk.cell() ... } while (walk.next());
// (a loop the kernels write out rather than a callback: GCC 12 kept the
// sums a lambda captured by reference in memory, a load and a store per
// word and cell). Windows are never empty (validate_pool2d).
class CellWalk {
 public:
  CellWalk(const PoolWindow& w, int32_t channels, int32_t channel)
      : cell_(w.first + channel),
        run_end_(cell_ + w.cols * channels),
        channels_(channels),
        run_bytes_(w.cols * channels),
        row_skip_(w.row_skip),
        rows_(w.rows) {}

  const int8_t* cell() const { return cell_; }

  // To the next cell; false past the last.
  bool next() {
    cell_ += channels_;
    if (cell_ != run_end_) return true;
    if (--rows_ == 0) return false;
    cell_ += row_skip_;
    run_end_ = cell_ + run_bytes_;
    return true;
  }

 private:
  const int8_t* cell_;
  const int8_t* run_end_;
  int32_t channels_, run_bytes_, row_skip_, rows_;
};

}  // namespace tinyaot
