#pragma once
#include "core/numerics/types.hpp"
