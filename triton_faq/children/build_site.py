"""Build the site and write the outcome as JSON (the test suite starts it in the background: conftest.py).

``build_site.py COMMAND_JSON FOLDER RESULT``
"""
import json, os, subprocess, sys
command, folder, result = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
with open(result + ".tmp", "w") as stream:
    json.dump({"returncode": done.returncode, "output": done.stdout + done.stderr}, stream)
os.replace(result + ".tmp", result)
