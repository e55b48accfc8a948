// A reference point for ndq's scanner, not part of ndq: simdjson on each line of an NDJSON
// file held in memory, reading `Elapsed` as a double.
//   dom:      dom::parser::parse, which validates the whole line (and builds its tape)
//   ondemand: ondemand::parser::iterate + find "Elapsed", which reads only up to the key
// Usage: ref FILE [THREADS]   (the lines are split into THREADS equal runs, one per thread)
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace simdjson;
using Lines = std::vector<std::pair<size_t, size_t>>;

static double dom_sum(const padded_string& buf, const Lines& lines, size_t from, size_t to) {
  dom::parser parser;
  double sum = 0;
  for (size_t i = from; i < to; i++) {
    dom::element e;
    if (parser.parse(buf.data() + lines[i].first, lines[i].second, false).get(e)) continue;
    double v;
    if (!e["Elapsed"].get_double().get(v)) sum += v;
  }
  return sum;
}

static double lazy_sum(const padded_string& buf, const Lines& lines, size_t from, size_t to) {
  ondemand::parser parser;
  double sum = 0;
  for (size_t i = from; i < to; i++) {
    ondemand::document d;
    auto [o, n] = lines[i];
    if (parser.iterate(buf.data() + o, n, n + SIMDJSON_PADDING).get(d)) continue;
    double v;
    if (!d["Elapsed"].get_double().get(v)) sum += v;
  }
  return sum;
}

template <class F>
static double run(F f, const padded_string& buf, const Lines& lines, int threads) {
  std::vector<std::thread> pool;
  std::vector<double> sums(threads);
  auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; t++) {
    size_t from = lines.size() * t / threads, to = lines.size() * (t + 1) / threads;
    pool.emplace_back([&, t, from, to] { sums[t] = f(buf, lines, from, to); });
  }
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  std::ifstream f(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  padded_string buf(ss.str());
  Lines lines;
  size_t s = 0;
  for (size_t i = 0; i < buf.size(); i++)
    if (buf.data()[i] == '\n') lines.push_back({s, i - s}), s = i + 1;
  std::printf("%zu lines, %zu bytes, %d thread(s)\n", lines.size(), buf.size(), threads);
  for (int round = 0; round < 5; round++) {
    double a = run(dom_sum, buf, lines, threads), b = run(lazy_sum, buf, lines, threads);
    std::printf("dom (validates every line) %6.0f MB/s   ondemand (up to Elapsed) %6.0f MB/s\n",
                buf.size() / a / 1e6, buf.size() / b / 1e6);
  }
}
