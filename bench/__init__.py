"""``make bench``: LightNote's hot paths measured over real HTTP (see ``bench/run.py``)."""
