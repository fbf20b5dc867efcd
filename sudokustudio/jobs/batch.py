"""Re-export of the batch protocol, which lives in ``core.batch`` so that
domain packages can define jobs without importing the jobs layer."""
from sudokustudio.core.batch import JOB_TYPES, BatchJob, OrderedMerger, job_from_spec  # noqa: F401
