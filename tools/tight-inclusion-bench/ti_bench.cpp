// Tight-Inclusion on the CCD benchmark's query files, measured the way `kairos ccd` measures
// Kairos (docs/ccd-queries.md): every CSV file under a folder (8 rows a query: three exact
// rationals and the ground truth per row; vertex-face or edge-edge by the file's path), each
// file's queries solved `repeat` times, the mean time per query, false negatives and false
// positives against the files' answers, totals per kind. Tight-Inclusion's own benchmark
// settings: minimum separation 0, tolerance 1e-6 unless given, t_max 1, at most 10^6
// iterations, its error bounds computed from the query, breadth-first search.
//
// Usage: ti_bench DIR [repeat] [tolerance]
#include <tight_inclusion/ccd.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

struct Query {
    Eigen::Vector3d v[8];
    bool truth;
};

// A rational of the files as a double: every denominator is a power of two and every
// numerator below 2^53 in these files, so the division is exact; anything else is refused.
static double rational(const std::string &num, const std::string &den, const std::string &where)
{
    const long double n = std::stold(num), d = std::stold(den);
    const double x = static_cast<double>(n / d);
    if (static_cast<long double>(x) * d != n) {
        std::fprintf(stderr, "%s: %s/%s is not exactly a double\n", where.c_str(), num.c_str(), den.c_str());
        std::exit(2);
    }
    return x;
}

static std::vector<Query> read_queries(const fs::path &file)
{
    std::ifstream in(file);
    std::vector<Query> out;
    std::string line;
    int row = 0;
    Query q{};
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
            f.push_back(cell);
        if (f.size() != 7) {
            std::fprintf(stderr, "%s: a row of %zu fields, not 7\n", file.c_str(), f.size());
            std::exit(2);
        }
        for (int a = 0; a < 3; a++)
            q.v[row][a] = rational(f[2 * a], f[2 * a + 1], file.string());
        q.truth = f[6] == "1";
        if (++row == 8) {
            out.push_back(q);
            row = 0;
        }
    }
    return out;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: ti_bench DIR [repeat] [tolerance]\n");
        return 2;
    }
    const int repeat = argc > 2 ? std::atoi(argv[2]) : 1;
    const double tolerance = argc > 3 ? std::atof(argv[3]) : 1e-6;
    const Eigen::Array3d err(-1, -1, -1);
    const double ms = 0.0, t_max = 1.0;
    const long max_itr = 1000000;
    std::vector<fs::path> files;
    for (const auto &e : fs::recursive_directory_iterator(argv[1]))
        if (e.is_regular_file() && e.path().extension() == ".csv")
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    // Per kind: queries, false negatives, false positives, seconds (of one pass).
    long n[2] = {0, 0}, fn[2] = {0, 0}, fp[2] = {0, 0};
    double secs[2] = {0, 0};
    for (const auto &file : files) {
        const std::string p = file.string();
        const int ee = p.find("edge-edge") != std::string::npos;
        if (!ee && p.find("vertex-face") == std::string::npos)
            continue;
        const auto qs = read_queries(file);
        std::vector<char> hit(qs.size());
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < repeat; r++) {
            for (size_t i = 0; i < qs.size(); i++) {
                const auto &v = qs[i].v;
                double toi, out_tol = tolerance;
                hit[i] = ee ? ticcd::edgeEdgeCCD(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], err, ms,
                                                 toi, tolerance, t_max, max_itr, out_tol, false,
                                                 ticcd::CCDRootFindingMethod::BREADTH_FIRST_SEARCH)
                            : ticcd::vertexFaceCCD(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], err, ms,
                                                   toi, tolerance, t_max, max_itr, out_tol, false,
                                                   ticcd::CCDRootFindingMethod::BREADTH_FIRST_SEARCH);
            }
        }
        const auto t1 = std::chrono::steady_clock::now();
        secs[ee] += std::chrono::duration<double>(t1 - t0).count() / repeat;
        for (size_t i = 0; i < qs.size(); i++) {
            n[ee]++;
            fn[ee] += qs[i].truth && !hit[i];
            fp[ee] += !qs[i].truth && hit[i];
        }
    }
    const char *kind[2] = {"vertex-face", "edge-edge"};
    for (int k = 0; k < 2; k++)
        std::printf("%s queries %ld false_negatives %ld false_positives %ld us_per_query %.3f\n", kind[k], n[k],
                    fn[k], fp[k], n[k] ? 1e6 * secs[k] / n[k] : 0.0);
    return 0;
}
