"""What a release command reads about its release: the stored revisions (revisions.py), the
live objects (live_objects.py) and the API server the objects are judged against
(api_target.py). The I/O itself is in sources/; these decide what to read and how it becomes
the planning core's input."""
