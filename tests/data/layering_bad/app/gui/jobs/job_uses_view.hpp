#pragma once
#include "views/annealing/ais_job.hpp"
