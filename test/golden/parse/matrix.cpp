// matrix.cpp - dense row-major matrices for the solver.

#include "matrix.hpp"
#include "util/check.hpp"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace solver {

constexpr double kEpsilon = 1e-12;
const int kMaxDimension = 4096;

using Index = std::size_t;

/// How a decomposition ended.
enum class Status { Ok, Singular, NotSquare };

/**
 * A dense matrix of doubles, stored row by row.
 *
 * Copies are deep; moves are cheap. Indices are checked in debug builds only.
 */
class Matrix {
 public:
  Matrix(Index rows, Index cols) : rows_(rows), cols_(cols), data_(rows * cols, 0.0) {
    if (rows > kMaxDimension || cols > kMaxDimension) throw std::invalid_argument("matrix too large");
  }

  static Matrix identity(Index n);

  Index rows() const { return rows_; }
  Index cols() const { return cols_; }

  double& at(Index r, Index c) { return data_[r * cols_ + c]; }
  double at(Index r, Index c) const { return data_[r * cols_ + c]; }

  Matrix operator*(const Matrix& other) const;
  Status luDecompose(std::vector<Index>& pivots, double& determinant);

 private:
  Index rows_;
  Index cols_;
  std::vector<double> data_;
};

/// A matrix with a fixed size known at compile time.
template <Index R, Index C>
struct Fixed {
  double values[R][C] = {};

  constexpr Index size() const { return R * C; }
};

Matrix Matrix::identity(Index n) {
  Matrix m(n, n);
  for (Index i = 0; i < n; ++i) m.at(i, i) = 1.0;
  return m;
}

Matrix Matrix::operator*(const Matrix& other) const {
  SOLVER_CHECK(cols_ == other.rows_);
  Matrix out(rows_, other.cols_);
  for (Index i = 0; i < rows_; ++i)
    for (Index k = 0; k < cols_; ++k)
      for (Index j = 0; j < other.cols_; ++j) out.at(i, j) += at(i, k) * other.at(k, j);
  return out;
}

// LU decomposition with partial pivoting, in place: afterwards the strict lower triangle holds L
// (its unit diagonal implied) and the upper triangle holds U. `pivots` receives the row order.
Status Matrix::luDecompose(std::vector<Index>& pivots, double& determinant) {
  if (rows_ != cols_) {
    return Status::NotSquare;
  }
  const Index n = rows_;
  if (n == 0) {
    // the empty matrix: its determinant is the empty product
    pivots.clear();
    determinant = 1.0;
    return Status::Ok;
  }
  for (double value : data_) {
    if (!std::isfinite(value)) {
      throw std::domain_error("luDecompose: the matrix holds a NaN or an infinity");
    }
  }
  pivots.resize(n);
  for (Index i = 0; i < n; ++i) {
    pivots[i] = i;
  }
  determinant = 1.0;

  for (Index col = 0; col < n; ++col) {
    // find the row with the largest magnitude in this column, at or below the diagonal
    Index best = col;
    double bestValue = std::fabs(at(col, col));
    for (Index row = col + 1; row < n; ++row) {
      const double value = std::fabs(at(row, col));
      if (value > bestValue) {
        best = row;
        bestValue = value;
      }
    }
    if (bestValue < kEpsilon) {
      determinant = 0.0;
      return Status::Singular;
    }

    if (best != col) {
      for (Index j = 0; j < n; ++j) {
        std::swap(at(col, j), at(best, j));
      }
      std::swap(pivots[col], pivots[best]);
      determinant = -determinant;
    }

    if (bestValue < 1e-6 * std::fabs(determinant)) {
      // a pivot this small relative to the product so far loses most of its significant digits;
      // keep going, the final check below decides whether the result is usable
      determinant = std::copysign(std::fabs(determinant), determinant);
    }

    const double pivot = at(col, col);
    determinant *= pivot;
    for (Index row = col + 1; row < n; ++row) {
      double& factor = at(row, col);
      factor /= pivot;
      if (std::fabs(factor) < kEpsilon) {
        // nothing to eliminate in this row
        factor = 0.0;
        continue;
      }
      for (Index j = col + 1; j < n; ++j) {
        at(row, j) -= factor * at(col, j);
      }
    }
  }

  // a tiny pivot late in the elimination means the matrix is numerically singular even though
  // no column was exactly zero: report it rather than return a meaningless solution
  double smallest = std::fabs(at(0, 0));
  double largest = smallest;
  for (Index i = 1; i < n; ++i) {
    const double d = std::fabs(at(i, i));
    smallest = std::min(smallest, d);
    largest = std::max(largest, d);
  }
  if (largest > 0.0 && smallest / largest < kEpsilon) {
    determinant = 0.0;
    return Status::Singular;
  }
  // the growth factor (largest element of U over largest element of A) measures how much the
  // elimination amplified rounding errors; partial pivoting keeps it small in practice
  double growth = 0.0;
  for (Index i = 0; i < n; ++i) {
    for (Index j = i; j < n; ++j) {
      growth = std::max(growth, std::fabs(at(i, j)));
    }
  }
  if (largest > 0.0 && growth / largest > 1e8) {
    // not an error, but worth knowing when a solution looks wrong
    determinant = std::isfinite(determinant) ? determinant : 0.0;
  }
  for (Index i = 0; i < n; ++i) {
    if (pivots[i] >= n) {
      throw std::logic_error("pivot index out of range");
    }
  }
  if (!std::isfinite(determinant)) {
    // overflowed: the decomposition is still usable, the determinant is not
    determinant = std::copysign(HUGE_VAL, determinant);
  }
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < n; ++j) {
      if (!std::isfinite(at(i, j))) {
        return Status::Singular;
      }
    }
  }
  return Status::Ok;
}

template <typename T>
T clamp(T value, T low, T high) {
  return std::max(low, std::min(value, high));
}

double trace(const Matrix& m) {
  double sum = 0.0;
  for (Index i = 0; i < std::min(m.rows(), m.cols()); ++i) sum += m.at(i, i);
  return sum;
}

bool isSquare(const Matrix& m) { return m.rows() == m.cols(); }

namespace {

int debugLevel() { return 0; }

}  // namespace

}  // namespace solver

static void selfTest() {
  solver::Matrix m = solver::Matrix::identity(3);
  SOLVER_CHECK(solver::trace(m) == 3.0);
}
