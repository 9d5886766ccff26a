# Writes the seed corpus of fuzz_json_depth (run from this directory: python3
# make_json_depth_seeds.py): JSON nested around the readers' 256-level limit and far beyond it,
# in the places each reader looks (a model's "training", a result's runs, a session's views,
# checkpoint logs), objects and arrays, brackets inside strings. The deepest stay below
# libFuzzer's -max_len (65536 bytes, scripts/fuzz.sh).
def write(name, text):
    with open("json_depth/" + name, "w") as f:
        f.write(text)

def arrays(n, inner="1"):
    return "[" * n + inner + "]" * n

def objects(n):
    return '{"a":' * n + "1" + "}" * n

write("arrays-256", arrays(256))
write("arrays-257", arrays(257))
write("arrays-30000", arrays(30000))
write("objects-257", objects(257))
write("objects-10000", objects(10000))
write("model-training-300", '{"kind": "brbm", "W": [[0.1]], "b": [0], "c": [0], "training": ' + arrays(300) + "}")
write("model-notes-brackets", '{"kind": "brbm", "W": [[0.1]], "b": [0], "c": [0], "notes": "' + "[{" * 2000 + '\\"]"}')
write("result-runs-300", '{"command": "ais", "runs": ' + arrays(300) + "}")
write("session-views-300", '{"format": "rbmscope-session", "views": ' + objects(300) + "}")
write("sweep-runs-300", '{"format": "rbmscope-ais-sweep-checkpoint", "version": 1, "options": [], "runs": ' + arrays(300) + "}")
write("train-log-300", '{"format": "rbmscope-train-checkpoint", "version": 1, "log": ' + arrays(300) + "}")
write("unbalanced-closers", "]" * 500 + arrays(200))
