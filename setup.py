"""Install the four rooms under one import root: ``annotate/`` → ``wordplay_audit.annotate`` etc.

Metadata lives in ``pyproject.toml``; only the package mapping is computed here, so a new
sub-package in a room is picked up without editing a list.
"""

from setuptools import find_packages, setup

ROOMS = ("annotate", "judges", "analysis", "corpora")

packages = find_packages(include=["wordplay_audit", "wordplay_audit.*"])
package_dir = {"wordplay_audit": "wordplay_audit"}
for room in ROOMS:
    package_dir[f"wordplay_audit.{room}"] = room
    packages.append(f"wordplay_audit.{room}")
    packages += [f"wordplay_audit.{room}.{sub}" for sub in find_packages(room)]

setup(packages=packages, package_dir=package_dir)
