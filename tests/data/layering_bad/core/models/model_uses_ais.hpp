#pragma once
#include "core/ais/runner.hpp"
