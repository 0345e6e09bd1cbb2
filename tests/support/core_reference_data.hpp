// tests/support/core_reference_data.hpp — reads the NumPy reference files in tests/data
// (`tensor NAME dim...` followed by the values in row-major order) for the core tests.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>

#include "core/types.hpp"

namespace attn::testing {

class reference_data {
public:
    explicit reference_data(const std::string& file_in_tests_data) {
        std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/tests/data/" + file_in_tests_data);
        REQUIRE(in.good());
        std::string word, name;
        while (in >> word) {
            if (word == "#") {
                std::getline(in, word);
                continue;
            }
            REQUIRE(word == "tensor");
            std::string header;
            std::getline(in, header);
            std::istringstream h(header);
            h >> name;
            std::vector<std::size_t> shape;
            std::size_t size = 1;
            for (std::size_t s; h >> s;) {
                shape.push_back(s);
                size *= s;
            }
            std::vector<double> values(size);
            for (double& v : values) REQUIRE(in >> v);
            tensors_[name] = xt::adapt(values, shape);
        }
    }

    const xt::xarray<double>& at(const std::string& name) const {
        const auto it = tensors_.find(name);
        if (it == tensors_.end()) FAIL("no tensor " << name << " in the reference data");
        return it->second;
    }
    matrix mat(const std::string& name) const { return at(name); }
    tensor3 t3(const std::string& name) const { return at(name); }

private:
    std::map<std::string, xt::xarray<double>> tensors_;
};

// Every element of `actual` within `tolerance` of `expected` (shapes must agree).
template <class A, class B>
void check_all_close(const A& actual, const B& expected, double tolerance, const std::string& what) {
    INFO(what);
    REQUIRE(std::vector<std::size_t>(actual.shape().begin(), actual.shape().end()) ==
            std::vector<std::size_t>(expected.shape().begin(), expected.shape().end()));
    for (std::size_t i = 0; i < actual.size(); ++i) {
        INFO("flat element " << i);
        CHECK_THAT(actual.flat(i), Catch::Matchers::WithinAbs(expected.flat(i), tolerance));
    }
}

}  // namespace attn::testing
