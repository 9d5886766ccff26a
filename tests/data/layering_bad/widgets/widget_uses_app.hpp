#pragma once
#include "jobs/background_jobs.hpp"
