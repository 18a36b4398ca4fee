// Placeholder until the handlers exist: the HTTP and SQS faces add their bundles here.
console.log('build: no bundles yet');
