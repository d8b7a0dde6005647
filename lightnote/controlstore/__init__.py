"""The Redis control store: records, Lua scripts and their one caller, binding, counters,
tallies."""
