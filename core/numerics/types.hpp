#pragma once
// Basic types shared by the whole core library.
#include <Eigen/Dense>
#include <stdexcept>
#include <string>

namespace rbm {

using Index = Eigen::Index;
using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;  // parameters, column-major: W is n_visible x n_hidden
// Chain states: one chain per row, so a chain's units are contiguous in memory and a
// half-step over a block of chains is one matrix product.
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A problem with what the user gave us (file, shape, value, option). Its message is shown
// as is (CLI: one line on stderr, exit 2; GUI: a message box), so it names the problem.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown by long computations when their cancel flag is raised.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

}  // namespace rbm
