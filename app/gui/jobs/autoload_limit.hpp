#pragma once
// What the app loads by itself, unasked, of a model's recorded training data ("training"): when a
// model is opened (Samples view) and for the annealing methods whose base is the data's base rate.
// A 2 KB model recording bars:3:40000000:1 made the app peak at 11 GB; above this the model is
// shown without its data and the view says so. Applied with rbm::ScopedMemoryCap.
#include <cstdint>
#include <string>

namespace rbmscope {

inline constexpr std::uint64_t kAutoLoadDataBytes = std::uint64_t(256) << 20;

// A refusal under the cap without its "; rbmscope --max-memory 3G allows it" (or "SIZE raises
// it"): raising the budget does not lift the cap, so that advice would mislead here.
inline std::string withoutBudgetAdvice(std::string message) {
    const std::string::size_type at = message.find("; rbmscope --max-memory ");
    if (at == std::string::npos) return message;
    std::string::size_type end = message.find(" it", at);
    end = end == std::string::npos ? message.size() : end + 3;
    return message.erase(at, end - at);
}

}  // namespace rbmscope
